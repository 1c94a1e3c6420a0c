// `edgesync validate`: loads the config root and says what it holds, or every error with its
// file, line and column (exit 1). `--json` prints the same for machines.

import type { Command } from 'commander';
import type { ConfigError, LoadResult } from '../config/index.js';
import { formatError } from '../config/errors.js';
import { withConfigAndState, type CommonOptions } from './common.js';
import { errorCount, loadRoot } from './load.js';
import { judgeConfig } from '../policy/evaluate.js';
import type { DesiredResource } from '../kinds/kind.js';
import { policyVerdict } from '../plan/messages.js';
import type { PolicyFinding } from '../plan/types.js';

export function register(program: Command): void {
  withConfigAndState(program.command('validate'))
    .description("check the config root: schemas, references, identities; nothing is sent, so credentials' secrets need not be set")
    .option('--json', 'print {valid, resources, errors, warnings} as JSON (warnings: only when a Policy warn rule found something)')
    .action(async (opts: CommonOptions) => {
      // Nothing is sent: a credential's reference must be well formed, its secret need not be there
      // (a pull request's check runs without one).
      const loaded = await loadRoot(opts, { checkSecrets: false });
      // The Policy rules that judge the config alone run here too: a deny refuses it as any error does.
      const judged = loaded.ok ? policyOfConfig(loaded.resources) : { errors: [], warnings: [] };
      const result: LoadResult = loaded.ok && judged.errors.length ? { ok: false, errors: judged.errors, files: loaded.files } : loaded;
      if (opts.json) process.stdout.write(JSON.stringify({ ...asJson(result), ...(judged.warnings.length && { warnings: judged.warnings }) }, null, 2) + '\n');
      else {
        for (const w of judged.warnings) process.stderr.write(`warning: ${formatError(w)}\n`);
        if (result.ok) process.stdout.write(summary(result.resources.map((r) => r.kind)));
        else process.stderr.write(errorReport(result.errors));
      }
      if (!result.ok) process.exitCode = 1;
    });
}

/** The config-only rules' findings, at the resource judged: denies and rules that give no bool as errors, warns as warnings. */
function policyOfConfig(resources: readonly DesiredResource[]): { errors: ConfigError[]; warnings: ConfigError[] } {
  const { findings, notBool } = judgeConfig(resources);
  const byKey = new Map(resources.map((r) => [r.key, r]));
  const at = (f: PolicyFinding): ConfigError => {
    const where = (f.resource !== undefined && byKey.get(f.resource)?.source) || f.source;
    const why = f.error ? `; the rule could not be evaluated: ${f.error}` : '';
    return { ...where, path: '', message: `${f.resource ?? 'the config'}: ${policyVerdict(f, true)}: ${f.message}${why}` };
  };
  return {
    errors: [
      ...notBool.map(({ rule, error }) => ({ ...rule.at, path: '', message: `${rule.policy} rule ${rule.name} must return a bool: it ${error}` })),
      ...findings.filter((f) => f.effect === 'deny').map(at),
    ],
    warnings: findings.filter((f) => f.effect === 'warn').map(at),
  };
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
