// `edgesync state secret NAME`: prints one token secret a PostgreSQL state keeps (EDGESYNC_SECRETS_KEY),
// on stdout and nothing else, for a person or a script to hand to whatever uses the token.

import { Option, type Command } from 'commander';
import { DEFAULT_STATE_FILE } from '../state/index.js';
import { PgSecrets } from '../state/pg/secret-store.js';
import { parseSecretsKey, SECRETS_KEY_ENV } from '../state/pg/secrets.js';
import { stateBackend } from '../state/select.js';
import { withEnvironment } from './common.js';

interface SecretCliOptions {
  readonly state: string;
  readonly workspace?: string;
}

/**
 * The secret, or one line saying what to fix. Everything is checked before the database is reached:
 * the state must be a PostgreSQL one, and the key set and well formed.
 */
async function readStoredSecret(name: string, opts: SecretCliOptions, env: Readonly<Record<string, string | undefined>>): Promise<string> {
  const backend = stateBackend(opts.state, opts.workspace);
  if (!backend.database) {
    throw new Error(`${backend.shown} is a SQLite state: it keeps no token secret; they are files in its secrets folder (--secrets, default secrets/ beside the state file)`);
  }
  const text = env[SECRETS_KEY_ENV];
  if (text === undefined) throw new Error(`${SECRETS_KEY_ENV} is not set: it decrypts the token secrets ${backend.shown} keeps; set it to the key the applies ran with`);
  const secrets = new PgSecrets({ ...backend.database, key: parseSecretsKey(text) });
  const secret = await secrets.read(name);
  if (secret === undefined) {
    throw new Error(
      `${secrets.shown} keeps no secret of token ${name}: \`edgesync state list\` shows its ApiToken resources (by metadata.name); ` +
        `a token last created or rolled without ${SECRETS_KEY_ENV} set has its secret in the secrets folder`,
    );
  }
  return secret;
}

export function registerSecret(state: Command): void {
  withEnvironment(
    state
      .command('secret')
      .description(`print the secret of an API token kept in a PostgreSQL state (decrypted with ${SECRETS_KEY_ENV})`)
      .argument('<name>', "the token's metadata.name")
      .addOption(new Option('--state <url>', 'state: a postgres:// URL').env('EDGESYNC_STATE').default(DEFAULT_STATE_FILE))
      .addOption(new Option('--workspace <name>', 'which state of the PostgreSQL database (with --env NAME: NAME)').env('EDGESYNC_WORKSPACE')),
  ).action(async (name: string, opts: SecretCliOptions) => {
    let secret: string;
    try {
      secret = await readStoredSecret(name, opts, process.env);
    } catch (err) {
      process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
      process.exitCode = 1;
      return;
    }
    process.stdout.write(`${secret}\n`);
  });
}
