// A Policy's rules as CEL programs: parsed once per expression, the variables each one reads found
// by walking its syntax tree, and where in the expression a problem is (its line:col there).

import { celEnv, celType, isCelError, parse, plan as celPlan, type CelValue } from '@bufbuild/cel';
import type { SourceLocation } from '../kinds/kind.js';

/** The kind of the documents that hold rules. */
export const POLICY_KIND = 'Policy';

/** What a rule does when its expression is false. */
type Effect = 'deny' | 'warn';

/** What a rule does when its expression cannot be evaluated (a missing field, a result that is not a bool). */
type OnError = 'deny' | 'warn' | 'ignore';

/** The variables a rule may read. */
const VARIABLES = ['resource', 'action', 'plan'] as const;
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

/** A rule ready to run: the variables it reads, and its program. */
export interface Compiled {
  readonly uses: ReadonlySet<Variable>;
  /** `notBool`: the expression gave a value of another type, a fault of the rule itself. */
  run(bindings: Readonly<Record<Variable, unknown>>): { readonly value: boolean } | { readonly error: string; readonly notBool?: true };
}

type Expr = ReturnType<typeof parse>['expr'];

const env = celEnv();
const compiled = new Map<string, Compiled>();

/**
 * The rule's program, or why it cannot be one: a syntax error, or a variable other than resource,
 * action and plan, each with its line:col in the expression.
 */
export function compileRule(expression: string): Compiled | { readonly problem: string } {
  const kept = compiled.get(expression);
  if (kept) return kept;
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(expression);
  } catch (err) {
    return { problem: syntaxProblem(err) };
  }
  const positions = parsed.sourceInfo?.positions ?? {};
  const uses = new Set<Variable>();
  const unknown: string[] = [];
  freeNames(parsed.expr, new Set(), (name, id) => {
    if ((VARIABLES as readonly string[]).includes(name)) uses.add(name as Variable);
    else unknown.push(`${lineCol(expression, positions[id.toString()] ?? 0)}: ${name} is not a variable a rule can read (resource, action, plan)`);
  });
  if (unknown.length) return { problem: unknown.join('; ') };
  const program = celPlan(env, parsed);
  const out: Compiled = {
    uses,
    run: (bindings) => {
      const result = program(bindings as unknown as Record<string, never>);
      if (isCelError(result)) return { error: result.message };
      if (typeof result !== 'boolean') return { error: `returned ${[celType(result).name, shortText(result)].filter(Boolean).join(' ')}, not a bool`, notBool: true };
      return { value: result };
    },
  };
  compiled.set(expression, out);
  return out;
}

/** A rule that reads neither `action` nor `plan` judges the config alone: `validate` runs it. */
export function configOnly(rule: Compiled): boolean {
  return !rule.uses.has('action') && !rule.uses.has('plan');
}

/** The parser's message with its place given as the expression's line:col. */
function syntaxProblem(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  const located = /^<input>:(\d+):(\d+): (.*)$/s.exec(message);
  return located ? `${located[1]}:${located[2]}: ${located[3]}` : message;
}

/** 1-based line:col of `offset` in `text`. */
function lineCol(text: string, offset: number): string {
  const before = text.slice(0, Number(offset));
  const lines = before.split('\n');
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
