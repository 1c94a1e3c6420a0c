// What the plan tells a person about things edgesync does not do by itself: uncertain creates and
// deletes, orphans (prune is off, or no delete exists), dependencies on blocked or uncertain resources, policy findings.

import type { PolicyFinding } from './types.js';

/** Keys look like `Kind[account=…]/name`: brackets and commas need quoting in a shell. */
export function shellQuote(value: string): string {
  return /^[A-Za-z0-9_./=:@%+,-]+$/.test(value) ? value : `'${value.replaceAll("'", `'\\''`)}'`;
}

export function uncertainMessage(key: string): string {
  return (
    'a create was sent but its outcome is unknown; nothing will create it again until you run ' +
    `\`edgesync state resolve ${shellQuote(key)} --id ID\` (it exists) or \`--recreate\` (it does not)`
  );
}

/**
 * What becomes of a resource no document describes, while prune is off. `removable`: its kind has a
 * delete, which `--prune` sends.
 */
export function orphanMessage(key: string, removable = false): string {
  if (removable) return `not deleted, prune is off: \`--prune\` deletes it; or remove it by hand, then \`edgesync state forget ${shellQuote(key)}\``;
  return `no delete operation exists; remove it by hand, then \`edgesync state forget ${shellQuote(key)}\``;
}

export function uncertainDeleteMessage(key: string): string {
  return (
    'a delete was sent but its outcome is unknown; nothing is created under its name until the next apply with `--prune` sends it again ' +
    `(a 404 means it is gone), or you run \`edgesync state resolve ${shellQuote(key)} --recreate\` (it is gone) or \`--id ID\` (it is still there)`
  );
}

/** Up to this many keys are spelled out in the command; more go through a file. */
const INLINE_KEYS = 3;

export function orphanKeysMessage(key: string, keys: readonly string[], total = keys.length, kept = false): string {
  const inline = total <= INLINE_KEYS && keys.every((k) => !k.includes(','));
  const which = inline ? `--kv-keys ${shellQuote(keys.join(','))}` : '--kv-keys-file FILE';
  const why = kept
    ? 'not deleted, the document is protected (metadata.protect or --protect): prune keeps them'
    : 'not deleted, prune is off (`--prune`, or metadata.prune: true on the document, deletes them)';
  return `${why}; or remove them by hand, then \`edgesync state forget ${shellQuote(key)} ${which}\``;
}

/** Why a resource gets no call: what its dependency needs first. */
export function waitingMessage(dependency: string, because: 'blocked' | 'uncertain' | 'waiting'): string {
  const fix =
    because === 'uncertain'
      ? `its create is uncertain; settle it with \`edgesync state resolve ${shellQuote(dependency)}\``
      : because === 'blocked'
        ? 'it has a change that is blocked; undo or resolve that change first'
        : 'it waits for a resource of its own';
  return `waits for ${dependency}: ${fix}. Nothing is sent for this resource until then`;
}

/**
 * "denied by Policy/safety rule list-size (examples/policies/safety.yaml:17)": what a Policy finding
 * says, and where its rule is written (`col`: with the column, as a refused config says it).
 */
export function policyVerdict(f: PolicyFinding, col = false): string {
  const at = `${f.source.file}:${f.source.line}${col ? `:${f.source.col}` : ''}`;
  return `${f.effect === 'deny' ? 'denied' : 'warning'} by ${f.policy} rule ${f.rule} (${at})`;
}
