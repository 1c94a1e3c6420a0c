// Error codes, the error type every handler throws, and the two envelope shapes of the interface.
// Operations 4, 14 and 17 answer a full envelope; operation 14's errors carry only `message`.

/**
 * Stable integer codes of `errors[].code`:
 * - 7000 no route (the provider's answer to a model name whose slashes were encoded; status 400)
 * - 10000 authentication (missing, unknown or inactive bearer token; status 401)
 * - 10001 validation (any 400: fields, JSON, limits, multipart)
 * - 10003 forbidden (inspection endpoints from a non-loopback address; status 403)
 * - 10404 not found (unknown path, missing list or token; status 404)
 * - 10429 rate limited (status 429, with Retry-After)
 * - 10500 internal error (status 500, injected or unexpected)
 * - 10503 service unavailable (status 503, injected)
 *
 * and, on the reads, the provider's own codes for an object that is not there (status 404):
 * - 10007 Worker script, 100114 Worker domain, 10009 Worker route and KV key
 * (the other reads, whose codes the provider does not publish, answer 10404);
 *
 * and the provider's refusals of a second object where only one may be (status 409):
 * - 10020 a Worker route whose pattern another route of the zone has
 * - 12130 Access's conflict (`access.api.error.conflict`): the account already has its organization
 */
export const ErrorCode = {
  noRoute: 7000,
  authentication: 10000,
  validation: 10001,
  forbidden: 10003,
  notFound: 10404,
  rateLimited: 10429,
  internal: 10500,
  unavailable: 10503,
  scriptNotFound: 10007,
  domainNotFound: 100114,
  routeNotFound: 10009,
  kvKeyNotFound: 10009,
  routeExists: 10020,
  accessConflict: 12130,
} as const;

const codeByStatus: Record<number, number> = {
  400: ErrorCode.validation,
  401: ErrorCode.authentication,
  403: ErrorCode.forbidden,
  404: ErrorCode.notFound,
  409: ErrorCode.validation,
  429: ErrorCode.rateLimited,
  500: ErrorCode.internal,
  503: ErrorCode.unavailable,
};

/** An answer other than 200: the status and every message to report (one `errors` entry each). */
export class EmulatorError extends Error {
  override name = 'EmulatorError';
  readonly code: number;
  constructor(
    readonly status: number,
    readonly problems: readonly string[],
    readonly headers: Readonly<Record<string, string>> = {},
    code?: number,
  ) {
    super(problems.join('; '));
    this.code = code ?? codeByStatus[status] ?? (status >= 500 ? ErrorCode.internal : ErrorCode.validation);
  }
}

export function badRequest(problems: readonly string[]): EmulatorError {
  return new EmulatorError(400, problems);
}

/** A 404; `code` when the provider has its own for this kind of object. */
export function notFound(what: string, code?: number): EmulatorError {
  return new EmulatorError(404, [what], {}, code);
}

/**
 * The 200 answer: the full envelope, as the provider sends it to every operation (its own clients
 * refuse an answer without `success`), where the document shows only `{result}` or `{}`.
 */
export function successBody(_op: number | string, result: unknown): unknown {
  return { errors: [], messages: [], success: true, result };
}

export function errorBody(op: number | string | undefined, err: EmulatorError): unknown {
  // Operation 14's own errors are message-only; "No route" comes from the provider's router, before it, with its code.
  const errors = op === 14 && err.code !== ErrorCode.noRoute ? err.problems.map((message) => ({ message })) : err.problems.map((message) => ({ code: err.code, message }));
  return { success: false, errors, messages: [], result: null };
}
