// HTML for the status page built in one way only: a tagged template that escapes every value put
// into it, so a resource name, an error or a commit message with markup in it is shown as text.

/** Markup already escaped (built by `html`): put in as it is. */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text as HTML text or attribute value (quoted). */
function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ENTITIES[c]!);
}

type Value = Html | string | number | boolean | null | undefined | readonly Value[];

function piece(value: Value): string {
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return value.map(piece).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(String(value));
}

/** `html\`<td>${name}</td>\``: strings and numbers escaped, Html and arrays of it put in as they are. */
export function html(strings: TemplateStringsArray, ...values: Value[]): Html {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += piece(values[i]!) + strings[i + 1]!;
  return new Html(out);
}

/** An ISO 8601 time as the page shows it before its script puts it in local time. */
export function time(iso: string | undefined | null): Html {
  if (!iso) return html`<span class="none">never</span>`;
  const shown = iso
    .replace('T', ' ')
    .replace(/\.\d+Z$/, 'Z')
    .replace(/Z$/, ' UTC');
  return html`<time datetime="${iso}">${shown}</time>`;
}
