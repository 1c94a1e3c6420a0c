// `${NAME}` and `${NAME:-default}` in string values, from the environment; `$${` is a literal `${`.
// Applied before schema validation, so formats are checked on the final values.

export type Env = Readonly<Record<string, string | undefined>>;

export interface Interpolated {
  readonly value: string;
  /** One message per reference that could not be replaced. */
  readonly problems: readonly string[];
}

const REFERENCE = /\$\$\{|\$\{([^}]*)\}|\$\{/g;
const NAME = /^([A-Za-z_][A-Za-z0-9_]*)(?::-(.*))?$/s;

/** Replaces every reference in `text`; an unset variable without a default is a problem. */
export function interpolate(text: string, env: Env): Interpolated {
  if (!text.includes('${')) return { value: text, problems: [] };
  const problems: string[] = [];
  const value = text.replace(REFERENCE, (match: string, inner: string | undefined) => {
    if (match === '$${') return '${';
    if (inner === undefined) {
      problems.push('unclosed "${": write "$${" for a literal "${"');
      return match;
    }
    const m = NAME.exec(inner);
    if (!m) {
      problems.push(`"\${${inner}}" is not a variable reference: expected \${NAME} or \${NAME:-default}`);
      return match;
    }
    const [, name, fallback] = m;
    const set = env[name];
    // Like a shell's `:-`: the default also replaces an empty value.
    if (fallback !== undefined) return set === undefined || set === '' ? fallback : set;
    if (set === undefined) {
      problems.push(`environment variable ${name} is not set (write \${${name}:-default} to give a default)`);
      return match;
    }
    return set;
  });
  return { value, problems };
}
