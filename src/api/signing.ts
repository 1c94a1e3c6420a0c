// How a request is signed: a bearer token, an API key with its account email, or a user service
// key. Exactly one credential per request; its secret goes only into its header.

/** A credential's readable form, handed to the client; `secret` is never printed. */
export type Signer =
  | { readonly type: 'bearer'; readonly secret: string }
  | { readonly type: 'apiKey'; readonly secret: string; readonly email: string }
  | { readonly type: 'userServiceKey'; readonly secret: string };

/** The headers that carry `signer`, and nothing of any other credential. */
export function authHeaders(signer: Signer): Record<string, string> {
  switch (signer.type) {
    case 'bearer':
      return { authorization: `Bearer ${signer.secret}` };
    case 'apiKey':
      return { 'x-auth-email': signer.email, 'x-auth-key': signer.secret };
    case 'userServiceKey':
      return { 'x-auth-user-service-key': signer.secret };
  }
}
