// `${NAME}` and `${NAME:-default}` in string values, from the environment; `$${` is a literal `${`.
// Defaults may hold references themselves (`${A:-${B:-x}}`); applied before schema validation.

export type Env = Readonly<Record<string, string | undefined>>;

export interface Interpolated {
  readonly value: string;
  /** One message per reference that could not be replaced. */
  readonly problems: readonly string[];
}

const NAME = /^([A-Za-z_][A-Za-z0-9_]*)(?::-([\s\S]*))?$/;

/** References inside defaults inside defaults…: past this, a refusal rather than a deep recursion. */
const MAX_REFERENCE_NESTING = 8;

/** Replaces every reference in `text`; an unset variable without a default is a problem. */
export function interpolate(text: string, env: Env): Interpolated {
  if (!text.includes('${')) return { value: text, problems: [] };
  const problems: string[] = [];
  return { value: expand(text, env, problems, 0), problems };
}

/** The index of the `}` closing the reference whose `${` ends at `from`, counting nested references. */
function closing(text: string, from: number): number {
  let depth = 0;
  for (let i = from; i < text.length; i++) {
    if (text.startsWith('$${', i)) i += 2;
    else if (text.startsWith('${', i)) depth++, i++;
    else if (text[i] === '}') {
      if (depth === 0) return i;
      depth--;
    }
  }
  return -1;
}

function expand(text: string, env: Env, problems: string[], nesting: number): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const next = text.indexOf('$', i);
    if (next < 0) return out + text.slice(i);
    out += text.slice(i, next);
    if (text.startsWith('$${', next)) {
      out += '${';
      i = next + 3;
      continue;
    }
    if (!text.startsWith('${', next)) {
      out += '$';
      i = next + 1;
      continue;
    }
    const end = closing(text, next + 2);
    if (end < 0) {
      problems.push('unclosed "${": write "$${" for a literal "${"');
      return out + text.slice(next);
    }
    out += reference(text.slice(next, end + 1), text.slice(next + 2, end), env, problems, nesting);
    i = end + 1;
  }
  return out;
}

function reference(whole: string, inner: string, env: Env, problems: string[], nesting: number): string {
  const m = NAME.exec(inner);
  if (!m) {
    problems.push(`"${whole}" is not a variable reference: expected \${NAME} or \${NAME:-default}`);
    return whole;
  }
  const [, name, fallback] = m;
  const set = env[name];
  if (fallback !== undefined) {
    // Like a shell's `:-`: the default also replaces an empty value, and is expanded only when used.
    if (set !== undefined && set !== '') return set;
    if (!fallback.includes('${')) return fallback;
    if (nesting + 1 >= MAX_REFERENCE_NESTING) {
      problems.push(`"${whole}" nests references more than ${MAX_REFERENCE_NESTING} deep: refused`);
      return whole;
    }
    return expand(fallback, env, problems, nesting + 1);
  }
  if (set === undefined) {
    problems.push(`environment variable ${name} is not set (write \${${name}:-default} to give a default)`);
    return whole;
  }
  return set;
}
