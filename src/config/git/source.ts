// A git remote as a config source: each load reads the checkout while no sync moves it, so a
// config is never read half from one commit and half from the next, and is stamped with its commit.

import { loadConfig } from '../index.js';
import { withRevision, type ConfigSource } from '../source.js';
import type { GitCheckout } from './checkout.js';

export function gitSource(checkout: GitCheckout): ConfigSource {
  return {
    root: checkout.root,
    load: (options) =>
      checkout.reading(async (commit) => withRevision(await loadConfig({ ...options, root: checkout.root }), commit === undefined ? undefined : { commit, ref: checkout.ref })),
  };
}
