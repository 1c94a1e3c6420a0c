// Kinds register themselves here when their module is imported (src/kinds/index.ts imports all).
// Lookups by name are how config, plan and apply reach a kind.

import type { KindDefinition } from './kind.js';

const kinds = new Map<string, KindDefinition>();

export function registerKind(def: KindDefinition): KindDefinition {
  if (kinds.has(def.kind)) throw new Error(`Kind ${def.kind} is registered twice`);
  kinds.set(def.kind, def);
  return def;
}

export function getKind(kind: string): KindDefinition | undefined {
  return kinds.get(kind);
}

export function allKinds(): readonly KindDefinition[] {
  return [...kinds.values()];
}
