// A Policy's rules as CEL programs: parsed once per expression, the variables each one reads found
// by walking its syntax tree, and where in the expression a problem is (its line:col there).

import { createRequire } from 'node:module';
import type { CelValue } from '@bufbuild/cel';
import type { SourceLocation } from '../kinds/kind.js';

/** The kind of the documents that hold rules. */
export const POLICY_KIND = 'Policy';

/** What a rule does when its expression is false. */
type Effect = 'deny' | 'warn';

/** What a rule does when its expression cannot be evaluated (a missing field, a result that is not a bool). */
type OnError = 'deny' | 'warn' | 'ignore';

/** The variables a rule may read; `now` is the time of the plan (a CEL timestamp, from the injected clock). */
const VARIABLES = ['resource', 'action', 'plan', 'now'] as const;
export type Variable = (typeof VARIABLES)[number];

/** One rule of a Policy document, as its request holds it. */
export interface PolicyRule {
  readonly name: string;
  /** CEL: true when the resource, action or plan passes. */
  readonly expression: string;
  /** @default 'deny' */
  readonly effect: Effect;
  readonly message: string;
  /** @default 'deny' */
  readonly onError: OnError;
}

/** A rule with where its expression is written (the Policy kind's payload), and its Policy's key. */
export interface PlacedRule extends PolicyRule {
  readonly policy: string;
  readonly at: SourceLocation;
}

/** One reason an expression cannot be a program, at `offset` (0-based, in UTF-16 units) in the expression. */
interface Fault {
  readonly offset: number;
  readonly message: string;
}

/** A rule that cannot be a program: every fault, and all of them said with their line:col in the expression. */
interface Refused {
  readonly problem: string;
  readonly faults: readonly Fault[];
}

/** A rule ready to run: the variables it reads, and its program. */
export interface Compiled {
  readonly uses: ReadonlySet<Variable>;
  /** `notBool`: the expression gave a value of another type, a fault of the rule itself. */
  run(bindings: Readonly<Record<Variable, unknown>>): { readonly value: boolean } | { readonly error: string; readonly notBool?: true };
}

type Cel = typeof import('@bufbuild/cel');
type Expr = ReturnType<Cel['parse']>['expr'];

/**
 * CEL, loaded at the first rule compiled: its modules take about 100 ms to load, which a config
 * without a Policy (most of them) would pay at every start. Loaded whole and at once, so that the
 * kind's build, which is synchronous, can compile.
 */
let loaded: { readonly cel: Cel; readonly env: ReturnType<Cel['celEnv']> } | undefined;
function celRuntime(): NonNullable<typeof loaded> {
  if (loaded === undefined) {
    const cel = createRequire(import.meta.url)('@bufbuild/cel') as Cel;
    loaded = { cel, env: cel.celEnv() };
  }
  return loaded;
}

const compiled = new Map<string, Compiled>();

/**
 * The rule's program, or why it cannot be one: a syntax error, or each variable other than resource,
 * action, plan and now, each fault at its offset in the expression.
 */
export function compileRule(expression: string): Compiled | Refused {
  const kept = compiled.get(expression);
  if (kept) return kept;
  const { cel, env } = celRuntime();
  let parsed: ReturnType<Cel['parse']>;
  try {
    parsed = cel.parse(expression);
  } catch (err) {
    return refused(expression, [syntaxFault(expression, err)]);
  }
  const positions = parsed.sourceInfo?.positions ?? {};
  const uses = new Set<Variable>();
  const unknown: Fault[] = [];
  freeNames(parsed.expr, new Set(), (name, id) => {
    if ((VARIABLES as readonly string[]).includes(name)) uses.add(name as Variable);
    else unknown.push({ offset: Number(positions[id.toString()] ?? 0), message: `${name} is not a variable a rule can read (${VARIABLES.join(', ')})` });
  });
  if (unknown.length) return refused(expression, unknown);
  const program = cel.plan(env, parsed);
  const out: Compiled = {
    uses,
    run: (bindings) => {
      const result = program(bindings as unknown as Record<string, never>);
      if (cel.isCelError(result)) return { error: result.message };
      if (typeof result !== 'boolean') return { error: `returned ${[cel.celType(result).name, shortText(result)].filter(Boolean).join(' ')}, not a bool`, notBool: true };
      return { value: result };
    },
  };
  compiled.set(expression, out);
  return out;
}

/**
 * A rule that reads neither `action` nor `plan` judges the config alone: `validate` runs it. One that reads
 * `now` waits for a plan too: whether a config is valid does not depend on the hour it is checked at.
 */
export function configOnly(rule: Compiled): boolean {
  return !rule.uses.has('action') && !rule.uses.has('plan') && !rule.uses.has('now');
}

function refused(expression: string, faults: readonly Fault[]): Refused {
  return { problem: faults.map((f) => `${lineCol(expression, f.offset)}: ${f.message}`).join('; '), faults };
}

/** The parser's message, at the offset its line:col gives (the start of the expression when it gives none). */
function syntaxFault(expression: string, err: unknown): Fault {
  const message = err instanceof Error ? err.message : String(err);
  const located = /^<input>:(\d+):(\d+): (.*)$/s.exec(message);
  if (!located) return { offset: 0, message };
  const lines = expression.split('\n');
  const line = Math.min(Number(located[1]), lines.length);
  const before = lines.slice(0, line - 1).reduce((n, l) => n + l.length + 1, 0);
  return { offset: Math.min(before + Number(located[2]) - 1, expression.length), message: located[3]! };
}

/** 1-based line:col of `offset` in `text`. */
export function lineCol(text: string, offset: number): string {
  const lines = text.slice(0, offset).split('\n');
  return `${lines.length}:${lines[lines.length - 1]!.length + 1}`;
}

/** Calls `found` for each identifier not bound by a comprehension (`all`, `exists`, `map`…) around it. */
function freeNames(expr: Expr | undefined, bound: ReadonlySet<string>, found: (name: string, id: bigint) => void): void {
  if (!expr) return;
  const kind = expr.exprKind;
  switch (kind.case) {
    case 'identExpr':
      if (!bound.has(kind.value.name)) found(kind.value.name, expr.id);
      return;
    case 'selectExpr':
      return freeNames(kind.value.operand, bound, found);
    case 'callExpr':
      freeNames(kind.value.target, bound, found);
      for (const arg of kind.value.args) freeNames(arg, bound, found);
      return;
    case 'listExpr':
      for (const element of kind.value.elements) freeNames(element, bound, found);
      return;
    case 'structExpr':
      for (const entry of kind.value.entries) {
        if (entry.keyKind.case === 'mapKey') freeNames(entry.keyKind.value, bound, found);
        freeNames(entry.value, bound, found);
      }
      return;
    case 'comprehensionExpr': {
      const c = kind.value;
      freeNames(c.iterRange, bound, found);
      freeNames(c.accuInit, bound, found);
      const inner = new Set([...bound, c.iterVar, c.iterVar2, c.accuVar].filter((n) => n !== ''));
      freeNames(c.loopCondition, inner, found);
      freeNames(c.loopStep, inner, found);
      freeNames(c.result, inner, found);
      return;
    }
    default:
      return;
  }
}

function shortText(value: CelValue): string {
  const text = typeof value === 'bigint' ? value.toString() : typeof value === 'string' ? JSON.stringify(value) : typeof value === 'number' ? String(value) : '';
  return text.length > 40 ? `${text.slice(0, 39)}…` : text;
}
