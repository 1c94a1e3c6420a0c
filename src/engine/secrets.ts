// Where token secrets are kept, chosen once as the composition root is built: the secrets folder, or
// (a PostgreSQL state with EDGESYNC_SECRETS_KEY) the state's database, encrypted, for every replica.

import path from 'node:path';
import { fileSecrets, secretFileName, type SecretSink } from '../apply/files.js';
import type { StateBackend } from '../state/backend.js';
import { PgSecrets } from '../state/pg/secret-store.js';
import { parseSecretsKey, SECRETS_KEY_ENV } from '../state/pg/secrets.js';
import type { Clock } from '../util/clock.js';

/**
 * For one load: the token secret the state keeps for a file of the secrets folder (a Credentials
 * document's `secret: { file: NAME }`), or undefined. Decrypted on `read`.
 */
type SecretLookup = (file: string) => { read(): string } | undefined;

export interface SecretPlaces {
  /** Where an apply keeps the secrets it receives. */
  readonly sink: SecretSink;
  /** A new lookup per load (so a roll since the last one is seen), from one read of the state's secrets; absent when secrets are files. */
  readonly lookup?: () => Promise<SecretLookup>;
}

/**
 * Checked before anything is opened or sent. A key that is not 32 bytes of base64 is refused.
 * A key with a SQLite state is refused too, not merely warned about: whoever sets it expects the
 * secrets kept encrypted in the database, and going on would write them in plaintext to the
 * secrets folder, which a warning in a CI log does not undo.
 */
export function secretPlaces(state: StateBackend, env: Readonly<Record<string, string | undefined>>, secretsDir: string, clock: Clock): SecretPlaces {
  const text = env[SECRETS_KEY_ENV];
  if (text === undefined) return { sink: fileSecrets(secretsDir) };
  const key = parseSecretsKey(text);
  if (!state.database) {
    throw new Error(
      `${SECRETS_KEY_ENV} is set, but it is only used with a PostgreSQL state and ${state.shown} is a SQLite file, whose token secrets ` +
        'go to the secrets folder unencrypted: unset it, or pass --state postgres://… (or EDGESYNC_STATE)',
    );
  }
  const secrets = new PgSecrets({ ...state.database, key, clock });
  return {
    sink: { shown: secrets.shown, write: async (name, secret) => secrets.write(name, secret), remove: async (name) => secrets.remove(name) },
    lookup: async () => {
      const all = await secrets.findAll();
      return (file) => {
        const name = tokenNameOf(file, secretsDir);
        const sealed = name === undefined ? undefined : all.get(name);
        return sealed && { read: () => secrets.open(name!, sealed) };
      };
    },
  };
}

/** The token whose secret file `file` would be (directly in the secrets folder, named by secretFileName), if any. */
export function tokenNameOf(file: string, secretsDir: string): string | undefined {
  const absolute = path.resolve(file);
  if (path.dirname(absolute) !== path.resolve(secretsDir)) return undefined;
  const base = path.basename(absolute);
  let name: string;
  try {
    name = decodeURIComponent(base);
  } catch {
    return undefined;
  }
  return secretFileName(name) === base ? name : undefined;
}
