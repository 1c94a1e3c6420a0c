// What a value that becomes a path segment may be: the provider's own identifier formats, checked at
// validate so that no scope value, adopted id or model name can move a call to another endpoint.
// A '.' or '..' segment (or its %2e spelling) is collapsed by every URL parser, whatever the encoding,
// so it is refused here rather than sent; docs/path-rules.md says why each format is what it is.

/** Why `value` cannot be the `key` of a document, in words a user acts on; undefined when it can. */
type IdentifierCheck = (value: string, key: string) => string | undefined;

/** One character as a person can find it in the file: the glyph when printable, its code point always when not ASCII. */
function described(char: string): string {
  const code = char.codePointAt(0)!;
  const point = `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
  if (code < 0x20 || code === 0x7f) return `a control character ${point}`;
  if (code === 0x20) return 'a space';
  if (code < 0x80) return `'${char}'`;
  // Invisible or combining characters have no glyph worth quoting.
  return /[\p{L}\p{N}\p{P}\p{S}]/u.test(char) ? `a non-ASCII character '${char}' (${point})` : `a non-ASCII character ${point}`;
}

/** The first character outside `allowed`, described with its 1-based position in characters. */
function firstOutside(value: string, allowed: RegExp): string | undefined {
  const chars = [...value];
  const at = chars.findIndex((c) => !allowed.test(c));
  if (at === -1) return undefined;
  const char = chars[at]!;
  if (/[A-Z]/.test(char) && allowed.test(char.toLowerCase())) return `an uppercase '${char}' at position ${at + 1} (write it in lowercase)`;
  return `${described(char)} at position ${at + 1}`;
}

const HEX = /^[0-9a-f]$/;

/** "." and "..": what a URL parser takes for this folder and the one above, whatever their encoding. */
function dotSegment(value: string): string | undefined {
  return value === '.' || value === '..'
    ? `"${value}", which a URL parser takes for ${value === '.' ? 'this folder' : 'the folder above'}: the call would go to another endpoint`
    : undefined;
}

/** "2", "2 and 3", "2, 3 and 4". */
function listed(numbers: readonly number[]): string {
  return numbers.length === 1 ? String(numbers[0]) : `${numbers.slice(0, -1).join(', ')} and ${numbers[numbers.length - 1]}`;
}

/** 32 lowercase hexadecimal characters: the provider's account, zone, KV namespace, route and token ids. */
function hex32(name: string, where: string): IdentifierCheck {
  return (value, key) => {
    const length = [...value].length;
    const bad = firstOutside(value, HEX);
    if (bad === undefined && length === 32) return undefined;
    const count = `${length} character${length === 1 ? '' : 's'}`;
    const found = dotSegment(value) ?? (bad === undefined ? count : length === 32 ? bad : `${bad}, in ${count}`);
    return `${key} must be ${name}32 hexadecimal characters (0-9, a-f), ${where}; found ${found}`;
  };
}

/** A UUID as the provider writes a Gateway list's id: 8-4-4-4-12 hexadecimal characters. */
const uuid: IdentifierCheck = (value, key) => {
  if (/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/.test(value)) return undefined;
  const found = dotSegment(value) ?? firstOutside(value, /^[0-9a-fA-F-]$/) ?? `"${value}"`;
  return `${key} must be the list's UUID, 8-4-4-4-12 hexadecimal characters such as 2c3e57e0-5b6c-4b1e-9f3f-5c2a1d7f4e10; found ${found}`;
};

/** Lowercase letters, digits, '-' and '_', as the provider's script-name pattern `^[a-z0-9_][a-z0-9-_]*$`. */
const workerName: IdentifierCheck = (value, key) => {
  const bad = firstOutside(value, /^[a-z0-9_-]$/);
  if (bad === undefined && !value.startsWith('-')) return undefined;
  return `${key} must be a Worker's name: lowercase letters, digits, '-' and '_', not starting with '-'; found ${dotSegment(value) ?? bad ?? "'-' at position 1"}`;
};

/** A Worker environment: letters, digits, '-' and '_' (production, staging-eu). */
const environmentName: IdentifierCheck = (value, key) => {
  const bad = firstOutside(value, /^[A-Za-z0-9_-]$/);
  return bad === undefined ? undefined : `${key} must be an environment name: letters, digits, '-' and '_'; found ${dotSegment(value) ?? bad}`;
};

/** What a model name's parts between slashes hold: `@cf/meta/llama-3.1-8b-instruct`, `@hf/thebloke/zephyr-7b-beta-awq`. */
const MODEL_CHAR = /^[A-Za-z0-9@._:-]$/;
const MODEL_MAX = 256;

/**
 * A model name: parts between slashes, each of letters, digits and `@ . _ : -`, none empty, `.` or
 * `..` (a URL parser would take those as "this folder" and "the folder above" and send the run elsewhere).
 */
const modelName: IdentifierCheck = (value, key) => {
  const rule = `${key} must be a model name such as @cf/meta/llama-3.1-8b-instruct: parts between slashes, each of letters, digits and @ . _ : -, none empty, '.' or '..'`;
  const parts = value.split('/');
  const problems: string[] = [];
  for (const dot of ['..', '.']) {
    const at = parts.flatMap((p, i) => (p === dot ? [i + 1] : []));
    if (at.length) problems.push(`'${dot}' as part${at.length === 1 ? '' : 's'} ${listed(at)}, which a URL parser takes for ${dot === '.' ? 'this folder' : 'the folder above'}`);
  }
  const empty = parts.flatMap((p, i) => (p === '' ? [i + 1] : []));
  if (empty.length) problems.push(`an empty part (${value.startsWith('/') ? 'a leading' : value.endsWith('/') ? 'a trailing' : 'a double'} slash)`);
  const bad = firstOutside(value.replace(/\//g, '-'), MODEL_CHAR);
  if (bad !== undefined) problems.push(bad);
  if ([...value].length > MODEL_MAX) problems.push(`${[...value].length} characters, over ${MODEL_MAX}`);
  return problems.length ? `${rule}; found ${problems.join('; ')}` : undefined;
};

/**
 * Any other value sent as one path segment (a scope key of a kind added later): the characters of
 * the provider's identifiers and names, never `.` or `..`.
 */
const pathSegment: IdentifierCheck = (value, key) => {
  const bad = dotSegment(value) ?? firstOutside(value, /^[A-Za-z0-9._:@-]$/);
  return bad === undefined ? undefined : `${key} is sent as a part of the request's path: letters, digits and . _ - : @ only, never '.' or '..' alone; found ${bad}`;
};

/** The rule of each metadata key that becomes a path parameter, by key (every kind names them alike). */
const SCOPE_RULES: Readonly<Record<string, IdentifierCheck>> = {
  account: hex32('', 'as the dashboard shows it'),
  zone: hex32('the Zone ID, ', 'as the dashboard shows it'),
  namespace: hex32("the KV namespace's ID, ", 'as the dashboard shows it'),
  route: hex32("the route's id, ", 'as the provider answers it'),
  service: workerName,
  environment: environmentName,
  model: modelName,
};

/** The form of metadata.id of each kind that adopts an object, as the provider forms those ids. */
const ID_RULES: Readonly<Record<string, IdentifierCheck>> = {
  ApiToken: hex32("the token's id, ", 'as the provider answers it'),
  GatewayList: uuid,
  GatewayLocation: hex32("the location's id, ", 'as the provider answers it'),
  GatewayProxyEndpoint: hex32("the proxy endpoint's id, ", 'as the provider answers it'),
  GatewayAccount: hex32("the Zero Trust account's id, ", 'as the provider answers it'),
};

/** Why the scope value `value` of metadata key `key` cannot be sent; undefined when it can. */
export function checkScopeValue(key: string, value: string): string | undefined {
  return (SCOPE_RULES[key] ?? pathSegment)(value, key);
}

/** Why `value` cannot be `kind`'s metadata.id; undefined when it can. */
export function checkAdoptedId(kind: string, value: string): string | undefined {
  return (ID_RULES[kind] ?? pathSegment)(value, 'id');
}

/** Why `value` cannot be an account id where a document lists accounts (a credential's); undefined when it can. */
export function checkAccountId(value: string, key = 'account'): string | undefined {
  return SCOPE_RULES.account!(value, key);
}
