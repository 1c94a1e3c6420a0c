// What `apply` says when it is done: one line per failure, uncertain create, skip and warning,
// then a summary line. Errors come from the executor already free of secrets.

import type { ApplyResult } from '../apply/index.js';
import { plural } from '../util/format.js';

/** The token secrets a run received and could not keep: nobody holds them, so the tokens must be rolled. */
export function lostSecrets(result: ApplyResult): { resource: string; reason: string }[] {
  return [...result.failed, ...result.uncertain].flatMap((r) => (r.secretLost ? [{ resource: r.action.resource, reason: r.secretLost }] : []));
}

export function renderApplyResult(result: ApplyResult): string {
  const lines: string[] = [];
  for (const s of result.succeeded) {
    if (s.secretFile) lines.push(`  secret of ${s.action.resource} written to ${s.secretFile}`);
    if (s.outputFile) lines.push(`  output of ${s.action.resource} written to ${s.outputFile}${s.received ? ` (received ${s.received})` : ''}`);
    // A delete answered 404: what it would delete was gone already, and the state forgot it too.
    if (s.gone) lines.push(`  ${s.action.id}: gone already (404), forgotten from the state`);
    if (s.secretRemoved) lines.push(`  secret of ${s.action.resource} removed from ${s.secretRemoved}, with its token`);
  }
  // A run that could not connect: one line for every action it kept from being sent.
  const notSent = result.unreachable === undefined ? [] : result.failed.filter((f) => f.unreachable);
  if (notSent.length) lines.push(`x ${result.unreachable}; ${plural(notSent.length, 'action')} not sent`);
  for (const f of result.failed) {
    if (!notSent.includes(f)) lines.push(`x ${f.action.id} failed after ${plural(f.attempts, 'attempt')}: ${f.error}`);
  }
  for (const u of result.uncertain) {
    lines.push(`? ${u.action.id} is uncertain: ${u.error}`);
    const fix =
      u.action.change === 'delete'
        ? 'it may be gone now; the next apply with --prune sends it again (a 404 means it is gone), or run `edgesync state resolve ' +
          `${u.action.resource} --recreate\` (gone) or \`--id ID\` (still there)`
        : `it may exist now; run \`edgesync state resolve ${u.action.resource} --id ID\` or \`--recreate\``;
    lines.push(`    ${fix}`);
  }
  for (const s of result.skipped) lines.push(`- ${s.action.id} skipped: ${s.because}`);
  for (const w of result.warnings) lines.push(`! ${w}`);
  const parts = [
    `${plural(result.succeeded.length, 'action')} applied`,
    `${result.failed.length} failed`,
    `${result.uncertain.length} uncertain`,
    `${result.skipped.length} skipped`,
  ];
  lines.push(`Apply ${result.stopped || notSent.length ? 'stopped' : 'complete'}: ${parts.join(', ')}; ${plural(result.requests, 'request')} sent.`);
  for (const { resource, reason } of lostSecrets(result)) {
    lines.push(
      '',
      `!! SECRET LOST: the new secret of ${resource} was received but could not be kept: ${reason}`,
      '   Nobody holds it now. Fix what kept it from being written (said above), then roll the token: raise spec.rotate in its',
      '   document and apply (the old secret stops working when the new one is issued).',
    );
  }
  return lines.join('\n');
}
