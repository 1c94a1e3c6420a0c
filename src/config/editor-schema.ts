// The one schema editors point at (`# yaml-language-server: $schema=…/edgesync.schema.json`):
// the envelope, plus each kind's own schema chosen by `kind`. schemas/edgesync.schema.json is this.

import type { KindDefinition } from '../kinds/kind.js';

export function editorSchema(kinds: readonly KindDefinition[]): Record<string, unknown> {
  const sorted = [...kinds].sort((a, b) => (a.kind < b.kind ? -1 : 1));
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    title: 'edgesync document',
    description: 'One edgesync/v1 resource per YAML document; `kind` selects the schema of the rest.',
    type: 'object',
    properties: { kind: { enum: sorted.map((k) => k.kind) } },
    allOf: [
      { $ref: 'document.schema.json' },
      // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then, never awaited.
      ...sorted.map((k) => ({ if: { properties: { kind: { const: k.kind } }, required: ['kind'] }, then: { $ref: k.schema } })),
    ],
  };
}
