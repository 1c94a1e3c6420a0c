// A git remote as a config source: each load reads the checkout while no sync moves it, so a
// config is never read half from one commit and half from the next, and is stamped with its commit.

import { loadConfig } from '../index.js';
import { withRevision, type ConfigSource } from '../source.js';
import type { GitCheckout } from './checkout.js';

/** `environment`: `--env NAME`, whose overlays each load merges (LoadOptions.environment). */
export function gitSource(checkout: GitCheckout, environment?: string): ConfigSource {
  const given = environment !== undefined && { environment };
  return {
    root: checkout.root,
    load: (options) =>
      checkout.reading(async (commit) =>
        withRevision(await loadConfig({ ...options, root: checkout.root, ...given }), commit === undefined ? undefined : { commit, ref: checkout.ref }),
      ),
  };
}
