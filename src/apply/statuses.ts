// What a plan says of resources no call settles, written to state: blocked and orphaned as a run
// sees them, back to applied once the config and the state agree again, drift the config took, protection.

import type { Plan } from '../plan/types.js';
import type { AppliedResource, ResourceIdentity, ResourceStatus, StateStore } from '../state/types.js';
import type { Clock } from '../util/clock.js';
import type { ExecutorLogger } from './options.js';

type Store = Pick<StateStore, 'get' | 'recordStatus' | 'recordSuccess' | 'forget' | 'recordProtection'>;

/** What a write names of a resource the state holds. */
const identityOf = (known: AppliedResource): ResourceIdentity => ({ key: known.key, kind: known.kind, name: known.name, scope: known.scope });

/** Sets `status` (with its reason) on a resource state holds, unless it is uncertain or already says so. */
async function mark(state: Store, key: string, status: ResourceStatus, note: string | undefined): Promise<void> {
  const known = await state.get(key);
  if (!known || known.status === 'uncertain' || (known.status === status && known.lastError === note)) return;
  await state.recordStatus(identityOf(known), status, note);
}

/**
 * Before any call: a blocked or orphaned resource the plan finds unchanged is applied again. The
 * planner names them (`settling`); a Plan made without that list (by hand, as tests do) has each
 * unchanged resource looked up, which for 50,000 took 0.6 s. Drift the config now agrees with
 * (`accepted`) is recorded as applied, as it is there.
 */
export function clearSettled(plan: Plan, state: Store, logger: ExecutorLogger, clock: Clock): Promise<void> {
  return guarded(logger, async () => {
    for (const key of plan.settling ?? plan.unchanged) {
      const status = (await state.get(key))?.status;
      if (status === 'blocked' || status === 'orphaned') await mark(state, key, 'applied', undefined);
    }
    // Changed outside edgesync to what the config says: the state takes what is there, nothing is sent.
    for (const a of plan.accepted ?? []) {
      const known = await state.get(a.resource);
      if (known && known.status !== 'uncertain')
        await state.recordSuccess(identityOf(known), { request: a.request, hash: a.hash, ...(a.memo !== undefined && { memo: a.memo }) }, new Date(clock.now()));
    }
  });
}

/**
 * After the calls (which record `applied` as they succeed): what stays blocked or orphaned says so,
 * and each resource's protection from prune is what its document says (a new one's once created).
 */
export function recordUnsettled(plan: Plan, state: Store, logger: ExecutorLogger): Promise<void> {
  return guarded(logger, async () => {
    for (const b of plan.blocked) await mark(state, b.resource, 'blocked', b.reason);
    for (const o of plan.orphaned) if (!o.keys) await mark(state, o.resource, 'orphaned', o.message);
    // No longer described, and nothing remote to remove (a run): nothing for a person to do.
    for (const f of plan.forgotten ?? []) {
      const known = await state.get(f.resource);
      if (known && known.status !== 'uncertain') await state.forget(f.resource);
    }
    for (const p of plan.protection ?? []) await state.recordProtection(p.resource, p.protect);
  });
}

/** A status that cannot be written is said, never a reason to fail the run: the calls' records matter more. */
async function guarded(logger: ExecutorLogger, write: () => Promise<void>): Promise<void> {
  try {
    await write();
  } catch (err) {
    logger.error({ error: err instanceof Error ? err.message : String(err) }, 'a resource status could not be recorded in state');
  }
}
