// `edgesync show FILE`: a saved plan as text, JSON or Markdown, read back as `apply FILE` reads it;
// nothing is planned, read from the state or sent.

import type { Command } from 'commander';
import { planOutputOf, renderPlanAs, withPlanOutput, type PlanOutputFlags } from './plan-output.js';

export function register(program: Command): void {
  withPlanOutput(program.command('show'))
    .description('print a saved plan (`plan --out FILE`) as text, JSON or Markdown; nothing is read or sent')
    .argument('<file>', 'the saved plan')
    .option('--verbose', 'text: every KV chunk, every key, and what each change waits for')
    .action(async (file: string, flags: PlanOutputFlags) => {
      const out = planOutputOf(flags);
      const { readSavedPlanFile, planFromJson } = await import('../plan/index.js');
      const saved = readSavedPlanFile(file);
      const text = await renderPlanAs(
        out,
        () => planFromJson(saved),
        () => saved,
        `\`edgesync show ${file}\` prints it whole`,
      );
      process.stdout.write(`${text}\n`);
    });
}
