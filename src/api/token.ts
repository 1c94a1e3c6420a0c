// Where the API token comes from: EDGESYNC_API_TOKEN, else a token file.
// Every error names the source and the problem, never the token itself.

import { readFileSync } from 'node:fs';
import { TOKEN_PATTERN } from './options.js';

const TOKEN_ENV = 'EDGESYNC_API_TOKEN';

export class TokenError extends Error {
  override name = 'TokenError';
}

function fromSource(raw: string, source: string): string {
  const token = raw.trim();
  if (token === '') throw new TokenError(`${source} is empty`);
  if (!TOKEN_PATTERN.test(token)) {
    throw new TokenError(`${source} holds spaces or non-printable characters inside the token (value not shown)`);
  }
  return token;
}

/**
 * The token when one is given (EDGESYNC_API_TOKEN, or `tokenFile`), else undefined: Credentials
 * documents may sign everything, and the load says when a resource is left unsigned.
 */
export function optionalToken(input: { env?: NodeJS.ProcessEnv; tokenFile?: string }): string | undefined {
  const env = input.env ?? process.env;
  return input.tokenFile === undefined && !env[TOKEN_ENV]?.trim() ? undefined : resolveToken(input);
}

/** The token from EDGESYNC_API_TOKEN, else from `tokenFile` (trimmed). */
export function resolveToken(input: { env?: NodeJS.ProcessEnv; tokenFile?: string }): string {
  const env = input.env ?? process.env;
  const fromEnv = env[TOKEN_ENV];
  if (fromEnv !== undefined && fromEnv.trim() !== '') return fromSource(fromEnv, TOKEN_ENV);
  if (input.tokenFile === undefined) {
    throw new TokenError(`No API token: set ${TOKEN_ENV} or pass --token-file`);
  }
  let raw: string;
  try {
    raw = readFileSync(input.tokenFile, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unknown error';
    throw new TokenError(`Cannot read the token file ${input.tokenFile} (${code})`);
  }
  return fromSource(raw, `The token file ${input.tokenFile}`);
}
