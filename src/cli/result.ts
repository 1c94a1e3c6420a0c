// What `apply` says when it is done: one line per failure, uncertain create, skip and warning,
// then a summary line. Errors come from the executor already free of secrets.

import type { ApplyResult } from '../apply/index.js';
import { plural } from '../util/format.js';


export function renderApplyResult(result: ApplyResult): string {
  const lines: string[] = [];
  for (const s of result.succeeded) {
    if (s.secretFile) lines.push(`  secret of ${s.action.resource} written to ${s.secretFile}`);
    if (s.outputFile) lines.push(`  output of ${s.action.resource} written to ${s.outputFile}`);
  }
  for (const f of result.failed) {
    lines.push(`x ${f.action.id} failed after ${plural(f.attempts, 'attempt')}: ${f.error}`);
  }
  for (const u of result.uncertain) {
    lines.push(`? ${u.action.id} is uncertain: ${u.error}`);
    lines.push(`    it may exist now; run \`edgesync state resolve ${u.action.resource} --id ID\` or \`--recreate\``);
  }
  for (const s of result.skipped) lines.push(`- ${s.action.id} skipped: ${s.because}`);
  for (const w of result.warnings) lines.push(`! ${w}`);
  const parts = [
    `${plural(result.succeeded.length, 'action')} applied`,
    `${result.failed.length} failed`,
    `${result.uncertain.length} uncertain`,
    `${result.skipped.length} skipped`,
  ];
  lines.push(`Apply ${result.stopped ? 'stopped' : 'complete'}: ${parts.join(', ')}; ${plural(result.requests, 'request')} sent.`);
  return lines.join('\n');
}
