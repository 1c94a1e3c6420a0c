// The client of the 17 operations: what the executor, the command line and the daemon import.
// Everything here is re-exported from its own file; this one only names the public surface.

export { createClient, type ApiClient } from './client.js';
export { optionalToken, resolveToken, TokenError } from './token.js';
export { ApiError } from './errors.js';
export { DEFAULT_USER_AGENT, type CallInfo } from './options.js';
export { BODY_PART_HEADER, MAIN_MODULE_PART_HEADER } from './multipart.js';
export type { Signer } from './signing.js';
export { OPERATIONS, operationPath, type OperationName } from './operations.js';
export type * from './types.js';
