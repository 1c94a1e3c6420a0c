// Fake kinds for prune tests: the fakes of ./fakes.ts with the deletes the real kinds name (a list,
// a route that follows its site, a token whose secret goes with it), and the real KvPairs kind.

import type { KindDefinition } from '../../src/kinds/kind.js';
import '../../src/kinds/index.js';
import { getKind } from '../../src/kinds/registry.js';
import { kinds } from './fakes.js';

const byId = (operation: 'deleteList' | 'deleteRoute' | 'deleteToken', param: string): KindDefinition['remove'] => ({
  operation,
  params: (applied) => (applied.remoteId !== undefined ? { ...applied.scope, [param]: applied.remoteId } : undefined),
});

export const pruneKinds: Record<string, KindDefinition> = {
  ...kinds,
  List: { ...kinds.List!, remove: byId('deleteList', 'list_id') },
  Route: { ...kinds.Route!, remove: byId('deleteRoute', 'route_id') },
  Token: { ...kinds.Token!, remove: { ...byId('deleteToken', 'token_id')!, secret: true } },
  KvPairs: getKind('KvPairs')!,
};

export const withPrune = { kinds: (name: string) => pruneKinds[name] };
