// What the plan tells a person about things edgesync cannot do by itself: uncertain creates,
// orphans (no delete operation exists) and dependencies on blocked or uncertain resources.

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

export function orphanMessage(key: string): string {
  return `no delete operation exists; remove it by hand, then \`edgesync state forget ${shellQuote(key)}\``;
}

/** Up to this many keys are spelled out in the command; more go through a file. */
const INLINE_KEYS = 3;

export function orphanKeysMessage(key: string, keys: readonly string[], total = keys.length): string {
  const inline = total <= INLINE_KEYS && keys.every((k) => !k.includes(','));
  const which = inline ? `--kv-keys ${shellQuote(keys.join(','))}` : '--kv-keys-file FILE';
  return `no delete operation exists; remove them by hand, then \`edgesync state forget ${shellQuote(key)} ${which}\``;
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
