// How `plan` and `show` print a plan: text for a terminal, JSON for a program, Markdown for a pull
// request's comment. The flags are checked here once, in the words a user types.

import { type Command, Option } from 'commander';
import type { Plan, PlanJson } from '../plan/index.js';
import { checkString, fail } from '../util/options.js';
import { parseCount } from './common.js';

const PLAN_FORMATS = ['text', 'json', 'markdown'] as const;
type PlanFormat = (typeof PLAN_FORMATS)[number];

/** The flags as commander hands them over. */
export interface PlanOutputFlags {
  readonly format?: string;
  readonly json?: boolean;
  readonly linkBase?: string;
  readonly maxChars?: string;
  readonly verbose?: boolean;
}

/** The output, checked. */
export interface PlanOutput {
  /** `--format`; `--json` says `json`. @default 'text' */
  readonly format: PlanFormat;
  /** `--verbose`: every KV chunk, every key, each action's needs (text). @default false */
  readonly verbose: boolean;
  /** `--link-base`: prefix of the links to each document's position (Markdown). @default links relative to the working folder */
  readonly linkBase?: string;
  /** `--max-chars`: the Markdown comment's bound. @default 65536 (GitHub's limit) */
  readonly maxChars?: number;
}

export function withPlanOutput(cmd: Command): Command {
  return cmd
    .addOption(new Option('--format <format>', 'text, json (the shape of a saved plan, docs/plan-format.md) or markdown (a pull request comment)').choices(PLAN_FORMATS))
    .option('--link-base <url>', 'markdown: prefix of the links to each document, e.g. https://github.com/ORG/REPO/blob/SHA/ (default: relative links)')
    .option('--max-chars <n>', 'markdown: the comment stays under this many characters, leaving out whole resources past it (default: 65536, GitHub’s limit)');
}

export function planOutputOf(flags: PlanOutputFlags): PlanOutput {
  if (flags.json && flags.format !== undefined && flags.format !== 'json') fail('--format', '`json` with --json (--json is --format json)', flags.format);
  const format = (flags.json ? 'json' : (flags.format ?? 'text')) as PlanFormat;
  return {
    format,
    verbose: flags.verbose === true,
    ...(flags.linkBase !== undefined && { linkBase: checkString('--link-base', flags.linkBase) }),
    ...(flags.maxChars !== undefined && { maxChars: parseCount('--max-chars', flags.maxChars, 1_000, 100_000_000) }),
  };
}

/**
 * The plan as `out` says, from the plan itself (text) or its JSON (json, markdown; `json` made only
 * when needed). `wholePlan`: where the whole plan is, when a Markdown comment leaves resources out.
 */
export async function renderPlanAs(out: PlanOutput, plan: () => Plan, json: () => PlanJson, wholePlan?: string): Promise<string> {
  const { renderText } = await import('../plan/text.js');
  if (out.format === 'text') return renderText(plan(), { color: process.stdout.isTTY === true, verbose: out.verbose });
  if (out.format === 'json') return JSON.stringify(json(), null, 2);
  const { renderMarkdown } = await import('../plan/markdown.js');
  return renderMarkdown(json(), {
    ...(out.linkBase !== undefined && { linkBase: out.linkBase }),
    ...(out.maxChars !== undefined && { maxChars: out.maxChars }),
    ...(wholePlan && { wholePlan }),
  });
}
