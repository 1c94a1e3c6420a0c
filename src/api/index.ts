// The client of the 17 operations: what the executor, the command line and the daemon import.
// Everything here is re-exported from its own file; this one only names the public surface.

export { createClient, type ApiClient, type CallOptions } from './client.js';
export { optionalToken, resolveToken, TokenError, TOKEN_ENV } from './token.js';
export { ApiError, type ApiErrorKind } from './errors.js';
export { isBinaryAnswer, type BinaryAnswer } from './response.js';
export { DEFAULT_USER_AGENT, type CallInfo, type ClientOptions } from './options.js';
export { BODY_PART_HEADER, MAIN_MODULE_PART_HEADER } from './multipart.js';
export { authHeaders, type Signer } from './signing.js';
export { checkedUrl, OPERATIONS, operationPath, PathParameterError, type CheckedUrl, type OperationName } from './operations.js';
export type * from './types.js';
