// A desired resource as the loader would make it, for tests that plan or refresh without a config.

import type { DesiredResource, Json } from '../../src/kinds/kind.js';
import { contentHash } from '../../src/util/json.js';

/** `kind`/`name` in `scope` (keys in the order given), asking for `request`, signed by `credential`. */
export function desiredResource(kind: string, name: string, scope: Record<string, string>, request: Json, credential?: string): DesiredResource {
  const parts = Object.entries(scope).map(([k, v]) => `${k}=${v}`);
  return {
    key: `${kind}${parts.length ? `[${parts.join(',')}]` : ''}/${name}`,
    kind,
    name,
    scope,
    dependsOn: [],
    request,
    hash: contentHash(request),
    source: { file: '/config/resources.yaml', line: 1, col: 1 },
    ...(credential !== undefined && { credential }),
  };
}
