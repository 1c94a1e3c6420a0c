// UserProfile (operation 15, PATCH): the calling user's country, names, telephone and zipcode.
// Only changed fields are sent; a field removed from the file stays as it is remotely.

import { pick } from './diff.js';
import { patchKind } from './families.js';
import { registerKind } from './registry.js';

registerKind(
  patchKind({
    kind: 'UserProfile',
    scopeKeys: [],
    paramMap: {},
    operation: 'editUser',
    // The calling user is the one its credential signs as: metadata.credentials names another user.
    userScope: true,
    // The profile of the user its credential signs as (a read of one object, signed like the edit);
    // id, created_on, modified_on and the account's other user fields are the server's. No set.
    observe: { read: 'getUser', params: () => ({}), asRequest: (o) => pick(o, ['country', 'first_name', 'last_name', 'telephone', 'zipcode']) },
    targets: (self) => [{ what: self.scope.credentials ? `the profile of the user of credentials ${self.scope.credentials}` : "the calling user's profile" }],
  }),
);
