// Credentials: how calls are signed (bearer, apiKey, userServiceKey) and for which accounts; no remote
// object, nothing to apply. The request names where the secret is read, never the secret.

import type { Json } from '../util/json.js';
import { compact, isObject } from './diff.js';
import { defineKind, NOTHING } from './families.js';
import { checkAccountId } from './identifiers.js';
import type { BuildContext, Built, ResourceDocument } from './kind.js';
import { registerKind } from './registry.js';

const CREDENTIAL_TYPES = ['bearer', 'apiKey', 'userServiceKey'] as const;
type CredentialType = (typeof CREDENTIAL_TYPES)[number];

/** Where a value is read: an environment variable or a file. */
type SecretRef = { readonly env: string } | { readonly file: string };

/** The request of a Credentials resource: references only. */
export interface CredentialSpec {
  readonly type: CredentialType;
  readonly secret: SecretRef;
  /** apiKey only: a plain email or where to read it. */
  readonly email?: string | { readonly env: string };
  readonly accounts: readonly string[];
  readonly default: boolean;
}

/** `{ env: NAME }` or `{ file: PATH }`, exactly one, non-empty; anything else is an issue at `at`. */
function secretRef(value: unknown, at: (string | number)[], ctx: BuildContext): SecretRef | undefined {
  if (typeof value === 'string' || typeof value === 'number') {
    ctx.issue(at, 'takes { env: NAME } or { file: PATH }, never the secret itself: written here it would sit in the file and in git');
    return undefined;
  }
  const keys = isObject(value) ? Object.keys(value) : [];
  const ref = isObject(value) ? value : {};
  if (keys.length !== 1 || !['env', 'file'].includes(keys[0]!) || typeof ref[keys[0]!] !== 'string' || ref[keys[0]!] === '') {
    ctx.issue(at, 'expected { env: NAME } or { file: PATH }: exactly one, a non-empty string');
    return undefined;
  }
  return keys[0] === 'env' ? { env: ref.env as string } : { file: ref.file as string };
}

function build(doc: ResourceDocument, ctx: BuildContext): Built {
  const spec = isObject(doc.spec) ? doc.spec : {};
  const type = (spec.type ?? 'bearer') as CredentialType;
  const secret = secretRef(spec.secret, ['spec', 'secret'], ctx);
  let email: CredentialSpec['email'];
  if (spec.email !== undefined && type !== 'apiKey') ctx.issue(['spec', 'email'], `a ${type} credential takes no email: only apiKey pairs an email with its key`);
  else if (type === 'apiKey') {
    if (typeof spec.email === 'string' && spec.email !== '') email = spec.email;
    else if (isObject(spec.email) && typeof spec.email.env === 'string' && Object.keys(spec.email).length === 1) email = { env: spec.email.env };
    else ctx.issue(['spec', 'email'], 'an apiKey credential needs email: the account email, a string or { env: NAME }');
  }
  // An account spelled otherwise than its resources' (a look-alike letter) would silently sign them with another credential.
  const accounts = Array.isArray(spec.accounts) ? spec.accounts : [];
  accounts.forEach((account, i) => {
    const problem = typeof account === 'string' && account !== '' ? checkAccountId(account) : undefined;
    if (problem !== undefined) ctx.issue(['spec', 'accounts', i], problem);
  });
  const request = compact({
    type,
    secret: (secret ?? null) as Json,
    ...(email !== undefined && { email: email as Json }),
    accounts: accounts as Json,
    default: spec.default === true,
  });
  return { request };
}

registerKind(
  defineKind(
    {
      kind: 'Credentials',
      scopeKeys: [],
      paramMap: {},
      build,
      operations: [],
      resend: () => ({ refused: 'a Credentials document has no remote object to re-send: it only says how other calls are signed' }),
      leavesNothing: 'a credential only says how calls are signed: nothing remote to remove',
    },
    // Nothing remote to bring in step: a credential only says how others' calls are signed.
    () => NOTHING,
    () => ({}),
  ),
);
