// The secrets of the Credentials documents, read when the config is loaded and held in memory only,
// for the client to sign with; the loader has already checked that each can be read (or is in the state).

import fs from 'node:fs';
import type { Signer } from '../api/signing.js';
import type { LoadResult } from '../config/index.js';
import { secretFilePath } from '../config/credentials.js';
import type { CredentialSpec } from '../kinds/credentials.js';

/**
 * The signer of each Credentials resource of `loaded`, or the load turned into an error naming what
 * could not be read. `stored`: a token secret the state keeps for a secret file (undefined: none), read before the disk.
 */
export function readSigners(
  loaded: Extract<LoadResult, { ok: true }>,
  env: Readonly<Record<string, string | undefined>>,
  secretsDir: string | undefined,
  stored?: (file: string) => string | undefined,
): { readonly signers: ReadonlyMap<string, Signer>; readonly files: readonly string[] } | { readonly failed: LoadResult } {
  const signers = new Map<string, Signer>();
  const files: string[] = [];
  for (const r of loaded.resources) {
    if (r.kind !== 'Credentials') continue;
    const spec = r.request as unknown as CredentialSpec;
    let secret: string | undefined;
    try {
      if ('env' in spec.secret) secret = env[spec.secret.env];
      else {
        const file = secretFilePath(spec.secret.file, secretsDir);
        secret = (stored?.(file) ?? fs.readFileSync(file, 'utf8')).trim();
      }
    } catch (err) {
      const where = 'file' in spec.secret ? spec.secret.file : '';
      // A file's error code, or why the state's copy could not be read (a wrong key: never the secret).
      const why = (err as NodeJS.ErrnoException).code ?? (err instanceof Error ? err.message : 'error');
      const message = `credential ${r.name}: its secret file ${where} cannot be read (${why}); nothing is sent`;
      return { failed: { ok: false, errors: [{ ...r.source, path: 'spec.secret', message }], files: loaded.files } };
    }
    if (!secret) {
      return { failed: { ok: false, errors: [{ ...r.source, path: 'spec.secret', message: `credential ${r.name} has an empty secret; nothing is sent` }], files: loaded.files } };
    }
    if ('file' in spec.secret) files.push(secretFilePath(spec.secret.file, secretsDir));
    const email = typeof spec.email === 'object' ? env[spec.email.env] : spec.email;
    signers.set(r.name, spec.type === 'apiKey' ? { type: 'apiKey', secret, email: email ?? '' } : { type: spec.type, secret });
  }
  return { signers, files };
}
