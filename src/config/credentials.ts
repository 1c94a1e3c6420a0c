// Which credential signs each resource (metadata.credentials, else the one whose accounts hold its
// account, else the default, else the environment's token), and whether every secret can be read.

import fs from 'node:fs';
import path from 'node:path';
import type { ConfigError } from './errors.js';
import type { DocumentOutcome } from './document.js';
import type { Env } from './interpolate.js';
import type { CredentialSpec } from '../kinds/credentials.js';
import { TurnClock } from '../util/turn.js';
import type { DesiredResource } from '../kinds/kind.js';
import { getKind } from '../kinds/registry.js';

/** The interface takes a user service key for these operations only. */
const SERVICE_KEY_OPERATIONS = new Set(['putScriptContent', 'runAi']);

export interface CredentialsCheck {
  readonly errors: readonly ConfigError[];
  /** The resources with `credential` set where one applies. */
  readonly resources: readonly DesiredResource[];
}

/** Where a credential's secret file is: absolute, or relative to the secrets folder. */
export function secretFilePath(file: string, secretsDir: string | undefined): string {
  return path.isAbsolute(file) ? file : path.resolve(secretsDir ?? '.', file);
}

/** Problems of a credential's secret file: missing, or readable by others. */
function fileProblems(name: string, file: string): { path: string[]; message: string }[] {
  let mode: number;
  try {
    mode = fs.statSync(file).mode;
  } catch {
    return [{ path: ['spec', 'secret', 'file'], message: `${file} does not exist: credential ${name} has no secret, and nothing is sent while one is missing` }];
  }
  if ((mode & 0o077) === 0) return [];
  return [
    {
      path: ['spec', 'secret', 'file'],
      message: `${file} is readable by group or others (mode ${(mode & 0o777).toString(8)}): make it owner-only (chmod 600) to use it as credential ${name}'s secret`,
    },
  ];
}

/** Problems of reading a credential's secret, naming the variable or the file (never a value). */
function secretProblems(name: string, spec: CredentialSpec, env: Env, secretsDir: string | undefined, stored?: (file: string) => boolean): { path: string[]; message: string }[] {
  const out: { path: string[]; message: string }[] = [];
  if ('env' in spec.secret) {
    if (!env[spec.secret.env])
      out.push({ path: ['spec', 'secret', 'env'], message: `${spec.secret.env} is not set: credential ${name} has no secret, and nothing is sent while one is missing` });
  } else {
    const file = secretFilePath(spec.secret.file, secretsDir);
    // A token secret the state keeps is read from there, not from this file.
    if (!stored?.(file)) out.push(...fileProblems(name, file));
  }
  if (spec.email !== undefined && typeof spec.email === 'object' && !env[spec.email.env]) {
    out.push({ path: ['spec', 'email', 'env'], message: `${spec.email.env} is not set: credential ${name} has no email` });
  }
  return out;
}

/**
 * Each resource's signed copy: a load that keeps outcomes signs the same resources again, and gets
 * the same copies (no new object per resource per load) while their credential stays the same.
 */
const signedCopies = new WeakMap<DesiredResource, DesiredResource>();

function signed(r: DesiredResource, credential: string): DesiredResource {
  const kept = signedCopies.get(r);
  if (kept?.credential === credential) return kept;
  // Not `{ ...r, credential }`: a spread of objects of many shapes gives each copy a hidden class of
  // its own (about 200 bytes per resource kept by the daemon); Object.assign shares them.
  const copy: DesiredResource = Object.assign({}, r, { credential });
  signedCopies.set(r, copy);
  return copy;
}

/**
 * `stored`: whether a secret file names a token secret the state keeps (read from there, not from
 * disk); false: no secret is looked for at all, only the references' form is checked (`validate`).
 */
export async function checkCredentials(
  outcomes: readonly DocumentOutcome[],
  env: Env,
  secretsDir: string | undefined,
  stored?: ((file: string) => boolean) | false,
): Promise<CredentialsCheck> {
  const errors: ConfigError[] = [];
  const creds = outcomes.filter((o) => o.resource?.kind === 'Credentials');
  const byName = new Map(creds.map((o) => [o.resource!.name, o.resource!.request as unknown as CredentialSpec]));
  const byAccount = new Map<string, string>();
  let fallback: string | undefined;
  for (const o of creds) {
    const { name } = o.resource!;
    const spec = byName.get(name)!;
    for (const [i, account] of spec.accounts.entries()) {
      const other = byAccount.get(account);
      if (other !== undefined) errors.push(o.at!(['spec', 'accounts', i], `account ${account} is claimed by credentials ${other} and ${name}: one account, one credential`));
      else byAccount.set(account, name);
    }
    if (spec.default) {
      if (fallback !== undefined) errors.push(o.at!(['spec', 'default'], `credentials ${fallback} and ${name} are both the default: at most one is`));
      else fallback = name;
    }
    if (stored !== false) for (const p of secretProblems(name, spec, env, secretsDir, stored)) errors.push(o.at!(p.path, p.message));
  }
  // The event loop runs every few milliseconds: 20,000 resources took 60 ms in one piece.
  const turns = new TurnClock();
  const resources: DesiredResource[] = [];
  for (const o of outcomes) {
    await turns.pace();
    const r = o.resource;
    if (r) resources.push(signedBy(o, r));
  }
  return { errors, resources };

  function signedBy(o: DocumentOutcome, r: DesiredResource): DesiredResource {
    if (r.kind === 'Credentials') return r;
    const named = r.credentials;
    if (named !== undefined && !byName.has(named)) {
      errors.push({ ...o.credentialsAt!, message: `names credentials ${named}, which no Credentials document defines` });
      return r;
    }
    const account = r.scope.account;
    const credential = named ?? (account !== undefined ? byAccount.get(account) : undefined) ?? fallback;
    if (credential !== undefined && byName.get(credential)!.type === 'userServiceKey') {
      const others = (getKind(r.kind)?.operations ?? []).filter((op) => !SERVICE_KEY_OPERATIONS.has(op));
      if (others.length) {
        const at = named !== undefined ? o.credentialsAt! : o.identity!.at;
        errors.push({
          ...at,
          message: `is signed by credentials ${credential}, a user service key, which the interface takes only for putScriptContent and runAi; ${r.kind} calls ${others.join(', ')}`,
        });
      }
    }
    return credential === undefined ? r : signed(r, credential);
  }
}
