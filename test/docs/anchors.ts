// GitHub's anchors for Markdown headings, as the links test and its users compute them.

/** The lines of a Markdown text outside fenced blocks. */
export function prose(text: string): string[] {
  const out: string[] = [];
  let fence: string | undefined;
  for (const line of text.split('\n')) {
    const m = /^\s*(`{3,}|~{3,})/.exec(line);
    if (m && (fence === undefined || m[1].startsWith(fence))) {
      fence = fence === undefined ? m[1] : undefined;
      continue;
    }
    if (fence === undefined) out.push(line);
  }
  return out;
}

/** GitHub's anchors for the headings of a Markdown text (a repeated one gets -1, -2, …). */
export function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const line of prose(text)) {
    const m = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const words = m[1].replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/[`*]/g, '');
    const slug = words
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    out.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return out;
}
