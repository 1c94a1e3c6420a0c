// `edgesync import`: adopt what an account already has, written as documents in a folder and recorded
// in the state as applied, so that `plan --refresh` on that folder right after finds nothing to do.

import { Option, type Command } from 'commander';
import type { ImportAsk, ImportResult } from '../engine/import.js';
import { closest, didYouMean } from '../util/closest.js';
import { formatCount, plural } from '../util/format.js';
import { remoteOptions, withRemote, type ExecOptions } from './common.js';
import { action, baseStateOptions } from './state-options.js';

interface ImportCliOptions extends Omit<ExecOptions, 'config'> {
  readonly account?: readonly string[];
  readonly zone?: readonly string[];
  readonly kinds?: string;
  readonly out: string;
  readonly kv?: string;
  readonly keysOnly?: boolean;
}

const repeatable = (value: string, previous: string[] = []) => [...previous, value];

/** An account, zone or namespace id as the dashboard shows it: letters, digits, `-` or `_`. */
const ID = /^[A-Za-z0-9_-]{1,64}$/;

/** The flags as an ImportAsk, every problem said at once; `known`: the kinds registered. */
export function importAskOf(opts: ImportCliOptions, known: readonly string[]): ImportAsk {
  const problems: string[] = [];
  const ids = (flag: string, values: readonly string[] = []) => {
    for (const v of values) if (!ID.test(v)) problems.push(`${flag} ${JSON.stringify(v)}: expected an id of letters, digits, - or _`);
    return [...new Set(values)];
  };
  const accounts = ids('--account', opts.account);
  const zones = ids('--zone', opts.zone);
  let kinds: string[] | undefined;
  if (opts.kinds !== undefined) {
    kinds = opts.kinds
      .split(',')
      .map((k) => k.trim())
      .filter((k) => k !== '');
    if (kinds.length === 0) problems.push('--kinds: expected kinds separated by commas, e.g. GatewayList,ApiToken');
    for (const k of kinds) if (!known.includes(k)) problems.push(`--kinds: no kind ${k}${didYouMean(closest(k, known))}`);
  }
  if (opts.kv !== undefined) {
    ids('--kv', [opts.kv]);
    if (accounts.length !== 1) problems.push(`--kv ${opts.kv}: a namespace is of one account: give exactly one --account (got ${accounts.length})`);
  }
  if (opts.keysOnly && opts.kv === undefined) problems.push('--keys-only: it says how --kv NAMESPACE_ID is read; give --kv');
  if (problems.length > 0) throw new Error(`edgesync import was refused:\n${problems.map((p) => `  ${p}`).join('\n')}`);
  return { accounts, zones, ...(kinds && { kinds }), ...(opts.kv !== undefined && { kv: { namespace: opts.kv, keysOnly: opts.keysOnly === true } }) };
}

export function register(program: Command): void {
  withRemote(baseStateOptions(program.command('import')))
    .description('write what an account already has as documents in a folder, and record them as applied (never a token secret)')
    .addOption(new Option('--out <dir>', 'the folder to write to: a config root; documents already there are kept, new ones appended').makeOptionMandatory())
    .option('--account <id>', 'an account to read (its Zero Trust objects, domains, settings); repeatable', repeatable)
    .option('--zone <id>', 'a zone to read (its Worker routes); repeatable', repeatable)
    .option('--kinds <kinds>', 'only these kinds, separated by commas (e.g. GatewayList,ApiToken)')
    .option('--kv <namespace_id>', 'also a KV namespace of the --account: its pairs to a JSON Lines file, with a KvPairs document reading it')
    .option('--keys-only', 'with --kv: the keys (expiration, metadata) without values, and no document (a KvPairs document needs every value)')
    .action(
      action(async (opts: ImportCliOptions, cmd: Command) => {
        await import('../kinds/index.js');
        const [{ allKinds }, { composeRoot }] = await Promise.all([import('../kinds/registry.js'), import('../engine/root.js')]);
        const ask = importAskOf(
          opts,
          allKinds().map((k) => k.kind),
        );
        const fs = await import('node:fs');
        fs.mkdirSync(opts.out, { recursive: true });
        const root = composeRoot(remoteOptions({ ...opts, config: opts.out }, process.env));
        const session = await root.session();
        try {
          const result = await session.engine.import(ask);
          process.stdout.write(said(result, opts.out, cmd.getOptionValueSource('state') === 'default' ? '' : ` --state ${opts.state}`));
          if (result.refusedConfig) process.exitCode = 1;
        } finally {
          await session.close();
        }
      }),
    );
}

/** What an import says: what it added and left, what it could not import and why, and the calls it made. */
function said(result: ImportResult, out: string, state: string): string {
  const lines: string[] = [];
  const addedKinds = new Map<string, number>();
  for (const a of result.added) addedKinds.set(a.kind, (addedKinds.get(a.kind) ?? 0) + 1);
  if (result.added.length === 0) lines.push(`Nothing new: ${out} already holds every object read.`);
  else {
    lines.push(`Added ${plural(result.added.length, 'document')} to ${out}:`);
    for (const a of result.added) lines.push(`  + ${a.kind}/${a.name}  ${a.file}`);
  }
  if (result.left.size > 0) {
    const total = [...result.left.values()].reduce((a, b) => a + b, 0);
    lines.push(`Left ${plural(total, 'object')} already there (by id), as written: ${[...result.left].map(([k, n]) => `${k} ${n}`).join(', ')}.`);
  }
  if (addedKinds.has('ApiToken')) {
    lines.push(
      "ApiToken: imported without a value: the provider never shows a token's secret again; raise spec.rotate to roll it and have the new one written to the secrets folder.",
    );
  }
  if (result.kv) {
    const { kv } = result;
    if (kv.left) lines.push(`KV namespace ${kv.namespace}: left as it is (already in ${out}).`);
    else if (kv.keysOnly) {
      lines.push(`KV namespace ${kv.namespace}: ${plural(kv.keys, 'key')} (no values) written to ${kv.file}.`);
      lines.push(
        `  No KvPairs document: it needs every pair's value. Fill in "value" on each line and add a KvPairs document with sources: [{jsonl: ${kv.file}}], or import again without --keys-only.`,
      );
    } else lines.push(`KV namespace ${kv.namespace}: ${formatCount(kv.keys)} pairs written to ${kv.file}.`);
    if (kv.expiring > 0) lines.push(`  ${plural(kv.expiring, 'key')} expiring within 5 minutes left out.`);
  }
  for (const n of result.notImported) lines.push(`Not imported: ${n.kind}: ${n.why}.`);
  for (const r of result.refused) lines.push(`Not read: ${r.kind}: ${r.why}.`);
  if (result.refusedConfig) {
    lines.push(`${out} does not load (${plural(result.refusedConfig.length, 'error')}; \`edgesync validate --config ${out}\` lists them): nothing was recorded in the state.`);
  } else if (result.recorded > 0) {
    lines.push(`Recorded ${plural(result.recorded, 'resource')} in the state as applied: \`edgesync plan --refresh --config ${out}${state}\` finds them in step.`);
  }
  lines.push(`${plural(result.calls, 'call')} made.`);
  return `${lines.join('\n')}\n`;
}
