// A saved plan (`plan --out FILE`, `apply FILE`): the JSON plan with what it was made from and a
// checksum; applied only while the state, the config and the plan made now are all the same.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { DesiredResource } from '../kinds/kind.js';
import { firstFew } from '../util/format.js';
import { canonicalJson, sha256 } from '../util/json.js';
import { VERSION } from '../util/version.js';
import { planToJson, type ConfigRoot, type MadeFrom, type PlanJson } from './json.js';
import type { Plan } from './types.js';

export interface SavedPlan extends PlanJson {
  readonly made_from: MadeFrom;
  /** sha256 of the canonical JSON of everything else: an edited file is refused. */
  readonly checksum: string;
}

/** A saved plan that cannot be applied, in one line. */
export class SavedPlanError extends Error {
  override name = 'SavedPlanError';
}

/**
 * What `plan` was made from: the loaded config (its digest and resources), the plan's own state and
 * targets, where the config root is (configRootOf) when `root` is given, and its environment (`--env`).
 */
export function madeFrom(
  plan: Plan,
  config: { readonly digest: string; readonly resources: readonly DesiredResource[] },
  root?: ConfigRoot,
  pruned?: { readonly prune?: boolean; readonly protect?: readonly string[] },
  environment?: string,
): MadeFrom {
  return {
    edgesync_version: VERSION,
    config_digest: config.digest,
    resources: Object.fromEntries(config.resources.map((r) => [r.key, r.hash])),
    state: plan.stateRevision ? { lineage: plan.stateRevision.lineage, serial: plan.stateRevision.serial } : null,
    targets: plan.targets ?? [],
    ...(root && { config_root: root }),
    ...(plan.refresh && { refresh: { recreate_missing: plan.refresh.recreateMissing } }),
    ...((pruned?.prune || pruned?.protect?.length) && { prune: { prune: pruned.prune === true, protect: pruned.protect ?? [] } }),
    ...(environment !== undefined && { environment }),
  };
}

/**
 * A saved plan is applied to the environment it was made for, or refused before anything is read: under
 * another, its actions were planned against another config and another state. `flag`: how the user gave
 * the environment now (`--env`, or EDGESYNC_ENV).
 */
export function checkSavedEnvironment(saved: SavedPlan, file: string, environment: string | undefined, flag: string): void {
  const then = saved.made_from.environment;
  if (then === environment) return;
  const made = then === undefined ? 'for the config root with no environment' : `for the environment ${then} (--env ${then})`;
  const variable = !flag.startsWith('-');
  const now = environment === undefined ? 'this apply names none' : `this apply is for ${environment} (${variable ? `${flag}=${environment}` : `${flag} ${environment}`})`;
  const fix = then !== undefined ? `apply it with --env ${then}` : variable ? `apply it with ${flag} unset` : `apply it without ${flag}`;
  throw new SavedPlanError(`${file} was made ${made}, and ${now}: ${fix}, or make the plan again for this one`);
}

/** The config root `root` as a saved plan records it: relative to `cwd` (the folder `plan` runs in), and absolute. */
export function configRootOf(root: string, cwd: string): ConfigRoot {
  const absolute = path.resolve(cwd, root);
  return { relative: path.relative(cwd, absolute) || '.', absolute };
}

/**
 * The config root `apply FILE` reads when no --config is given: the saved plan's, relative to `cwd`
 * when that is a folder (a checkout elsewhere, the same layout), else its absolute path (the same
 * machine, another folder); undefined for a plan saved before roots were recorded.
 */
export function savedConfigRoot(
  saved: SavedPlan,
  file: string,
  cwd: string,
  isFolder: (dir: string) => boolean,
): { readonly root: string; readonly fallback: boolean } | undefined {
  const recorded = saved.made_from.config_root;
  if (recorded === undefined) return undefined;
  if (typeof recorded?.relative !== 'string' || typeof recorded.absolute !== 'string')
    throw new SavedPlanError(`${file} is not a saved plan: its made_from.config_root is not {relative, absolute}`);
  if (isFolder(path.resolve(cwd, recorded.relative))) return { root: recorded.relative, fallback: false };
  if (isFolder(recorded.absolute)) return { root: recorded.absolute, fallback: true };
  throw new SavedPlanError(`${file} was made from the config root ${recorded.relative} (${recorded.absolute}), which is not a folder here, from ${cwd}: pass --config DIR`);
}

export function savedPlanText(plan: Plan, made: MadeFrom): string {
  const body = planToJson(plan, made);
  return JSON.stringify({ ...body, checksum: sha256(canonicalJson(body)) }, null, 2) + '\n';
}

/** The saved plan in `file`, or a SavedPlanError saying why it cannot be read or used. */
export function readSavedPlanFile(file: string): SavedPlan {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new SavedPlanError(`${file} cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
  return readSavedPlan(text, file);
}

/** The saved plan in `text`, or a SavedPlanError naming `file` and what is wrong with it. */
export function readSavedPlan(text: string, file: string): SavedPlan {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new SavedPlanError(`${file} is not a saved plan: it is not complete JSON (truncated?)`);
  }
  const saved = parsed as Partial<SavedPlan> | null;
  if (!saved || typeof saved !== 'object' || saved.made_from === undefined || typeof saved.checksum !== 'string') {
    throw new SavedPlanError(`${file} is not a saved plan: write one with \`edgesync plan --out ${file}\``);
  }
  if (saved.format_version !== 2) throw new SavedPlanError(`${file} has plan format ${String(saved.format_version)}; this edgesync reads format 2: make the plan again`);
  const { checksum, ...body } = saved;
  if (sha256(canonicalJson(body)) !== checksum) throw new SavedPlanError(`${file} was changed after it was saved (its checksum does not match): make the plan again`);
  return saved as SavedPlan;
}

/** An action as the comparison sees it: what it is, what it sends, what it records. */
const actionKey = (a: PlanJson['actions'][number]): string =>
  `${a.id} ${a.operation ?? '-'} ${a.record_hash ?? '-'} ${a.credential ?? '-'} ${a.size ? `${a.size.pairs}/${a.size.bytes}` : ''}${removedKey(a)}`;

/** A delete's part of the comparison: the resource, or a digest of the keys it deletes (the same keys, or none). */
const removedKey = (a: PlanJson['actions'][number]): string => {
  if (!a.removes) return '';
  return 'keys' in a.removes ? ` keys:${sha256(a.removes.keys.join('\n')).slice(0, 16)}` : ' resource';
};

/** Why `saved` may not be applied now (`now`: the plan made from the config and state of now); empty when it may. */
export function staleReasons(saved: SavedPlan, now: PlanJson & { readonly made_from: MadeFrom }): string[] {
  const then = saved.made_from;
  const current = now.made_from;
  if (then.edgesync_version !== current.edgesync_version) return [`it was made by edgesync ${then.edgesync_version}, and this is ${current.edgesync_version}`];
  if (then.state && current.state && then.state.lineage !== current.state.lineage) {
    return [`it was made against another state (${then.state.lineage.slice(0, 8)}…, this one is ${current.state.lineage.slice(0, 8)}…)`];
  }
  const reasons: string[] = [];
  const serial = (s: MadeFrom['state']) => s?.serial ?? 0;
  // A plan made before any apply holds for a state just created (serial 0), whatever its lineage.
  if (serial(then.state) !== serial(current.state)) {
    reasons.push(`the state changed since (write ${serial(then.state)} then, ${serial(current.state)} now): another apply ran`);
  }
  if (then.config_digest !== current.config_digest) {
    const keys = [...new Set([...Object.keys(then.resources), ...Object.keys(current.resources)])].sort();
    const changed = keys
      .filter((k) => then.resources[k] !== current.resources[k])
      .map((k) => (then.resources[k] === undefined ? `${k} (added)` : current.resources[k] === undefined ? `${k} (removed)` : k));
    reasons.push(`the config changed since: ${firstFew(changed)}`);
  }
  if (!reasons.length) {
    const was = saved.actions.map(actionKey);
    const is = now.actions.map(actionKey);
    if (was.join('\n') !== is.join('\n')) {
      const wasSet = new Set(was);
      const isSet = new Set(is);
      const differ = [...new Set([...was.filter((k) => !isSet.has(k)), ...is.filter((k) => !wasSet.has(k))].map((k) => k.split(' ')[0]!))];
      reasons.push(`the plan made now differs in ${firstFew(differ) || 'the order of its actions'} (a KV key expired, or time moved a rule)`);
    }
  }
  return reasons;
}
