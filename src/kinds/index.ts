// Imports every kind file so each registers itself; config, plan and apply import this once.
// Adding a kind means adding its file here, its schema and its test.

import './worker-script.js';
import './worker-domain.js';
import './worker-route.js';
import './access-organization.js';
import './gateway-list.js';
import './gateway-location.js';
import './gateway-proxy-endpoint.js';
import './gateway-logging.js';
import './gateway-account.js';
import './connectivity-settings.js';
import './user-profile.js';
import './api-token.js';
import './ai-run.js';
import './kv-pairs.js';
import './credentials.js';
import './policy.js';
