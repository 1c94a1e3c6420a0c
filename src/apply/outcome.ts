// What an apply came to, as one word and as the messages a run reports: shared by the daemon's
// runs and `edgesync apply`, so both keep the same record of a run in the state.

import type { ApplyResult } from './options.js';

export type ApplyOutcome = 'ok' | 'failed' | 'uncertain' | 'stopped';

export function applyOutcome(result: ApplyResult): ApplyOutcome {
  return result.stopped ? 'stopped' : result.failed.length ? 'failed' : result.uncertain.length ? 'uncertain' : 'ok';
}

/** Failure and uncertainty messages, `action: message`, then every secret received and lost; never a secret. */
export function applyErrors(result: ApplyResult): string[] {
  // A run that could not connect says so once, not once per action it kept from being sent.
  const notSent = result.unreachable === undefined ? [] : result.failed.filter((f) => f.unreachable);
  return [
    ...(notSent.length ? [`${result.unreachable}; ${notSent.length === 1 ? '1 action' : `${notSent.length} actions`} not sent`] : []),
    ...result.failed.filter((f) => !notSent.includes(f)).map((f) => `${f.action.id}: ${f.error}`),
    ...result.uncertain.map((u) => `${u.action.id}: ${u.error}`),
    ...[...result.failed, ...result.uncertain].flatMap((r) =>
      r.secretLost ? [`${r.action.resource}: SECRET LOST: its new secret was received but could not be kept (${r.secretLost}); roll the token`] : [],
    ),
  ];
}
