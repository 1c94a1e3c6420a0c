// `edgesync validate`: loads the config root and says what it holds, or every error with its
// file, line and column (exit 1). `--json` prints the same for machines.

import type { Command } from 'commander';
import type { ConfigError, LoadResult } from '../config/index.js';
import { formatError } from '../config/errors.js';
import { withConfigAndState, type CommonOptions } from './common.js';
import { errorCount, loadRoot } from './load.js';

export function register(program: Command): void {
  withConfigAndState(program.command('validate'))
    .description("check the config root: schemas, references, identities; nothing is sent, so credentials' secrets need not be set")
    .option('--json', 'print {valid, resources, errors} as JSON')
    .action(async (opts: CommonOptions) => {
      // Nothing is sent: a credential's reference must be well formed, its secret need not be there
      // (a pull request's check runs without one).
      const result = await loadRoot(opts, { checkSecrets: false });
      if (opts.json) process.stdout.write(JSON.stringify(asJson(result), null, 2) + '\n');
      else if (result.ok) process.stdout.write(summary(result.resources.map((r) => r.kind)));
      else process.stderr.write(errorReport(result.errors));
      if (!result.ok) process.exitCode = 1;
    });
}

function asJson(result: LoadResult) {
  return {
    valid: result.ok,
    resources: result.ok ? result.resources.map(({ key, kind, name, hash, source }) => ({ key, kind, name, hash, source })) : [],
    errors: result.ok ? [] : result.errors,
  };
}

/** One line per kind with its count, then the total. */
function summary(kinds: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const kind of [...kinds].sort()) counts.set(kind, (counts.get(kind) ?? 0) + 1);
  const width = Math.max(16, ...[...counts.keys()].map((k) => k.length + 1));
  const lines = [...counts].map(([kind, n]) => `${kind.padEnd(width)} ${n}`);
  lines.push(`${'total'.padEnd(width)} ${kinds.length}`);
  return lines.join('\n') + '\n';
}

/** Every error on its own line, then `N errors in M files`. */
function errorReport(errors: readonly ConfigError[]): string {
  return [...errors.map(formatError), errorCount(errors)].join('\n') + '\n';
}
