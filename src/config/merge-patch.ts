// JSON Merge Patch (RFC 7396): an environment's overlay document over its base one. Objects merge
// key by key, `null` removes a key, anything else (a list, a scalar) replaces what was there.

/** A plain map of a parsed document (not a list, not null). */
export function isMap(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** `patch` applied to `target`, as RFC 7396 section 2 says; neither is changed. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isMap(patch)) return patch;
  const out: Record<string, unknown> = {};
  if (isMap(target)) for (const [key, value] of Object.entries(target)) put(out, key, value);
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else put(out, key, mergePatch(Object.hasOwn(out, key) ? out[key] : undefined, value));
  }
  return out;
}

/** `__proto__` as a plain assignment would replace the prototype instead of adding a field (as the YAML walk does). */
function put(out: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * Whether the value at `path` of the merged document was set by `patch`: a step the patch does not
 * name keeps the target's; a step where the patch holds a list or a scalar is the patch's, with all
 * below it. Where both hold a map, the map is both's: `both` says whose place it takes.
 */
export function setByPatch(patch: unknown, path: readonly (string | number)[], both: boolean): boolean {
  let at = patch;
  for (const step of path) {
    if (!isMap(at)) return true;
    const key = String(step);
    if (!Object.hasOwn(at, key)) return false;
    at = at[key];
  }
  return isMap(at) ? both : true;
}
