// UserProfile (operation 15, PATCH): the calling user's country, names, telephone and zipcode.
// Only changed fields are sent; a field removed from the file stays as it is remotely.

import { patchKind } from './families.js';
import { registerKind } from './registry.js';

export const userProfile = registerKind(
  patchKind({
    kind: 'UserProfile',
    scopeKeys: [],
    paramMap: {},
    operation: 'editUser',
    // No path parameter: every UserProfile document edits the one calling user.
    targets: () => [{ what: "the calling user's profile" }],
  }),
);
