// AccessOrganization (operation 2, PUT): the account's Zero Trust organization settings.
// The spec is the request; the whole organization is sent whenever it changes.

import { accountRead, accountScope, perAccount, putKind } from './families.js';
import { registerKind } from './registry.js';

registerKind(
  putKind({
    kind: 'AccessOrganization',
    ...accountScope('identifier'),
    operation: 'updateAccessOrganization',
    targets: perAccount('Zero Trust organization'),
    // The organization as read, cut to what a document may set: created_at and updated_at (and any
    // setting the interface cannot write) are the server's. No field is a set.
    observe: accountRead('getAccessOrganization', [
      'auth_domain',
      'auto_redirect_to_identity',
      'custom_pages',
      'is_ui_read_only',
      'login_design',
      'name',
      'session_duration',
      'ui_read_only_toggle_reason',
      'user_seat_expiration_inactive_time',
    ]),
  }),
);
