import { describe, expect, it } from 'vitest';
import { ACCOUNT, desire, document, followed, observedAs, schemaErrors } from './helpers.js';
import { putScenarios } from './scenarios.js';

const metadata = { name: 'logging', account: ACCOUNT };
const spec = { redact_pii: true, settings_by_rule_type: { dns: { log_all: false, log_blocks: true } } };

describe('GatewayLogging', () => {
  putScenarios({
    kind: 'GatewayLogging',
    metadata,
    spec,
    changed: { ...spec, redact_pii: false },
    operation: 'updateLogging',
    params: { identifier: ACCOUNT },
  });

  it('follows the GatewayAccount of the same account when there is one', () => {
    const self = desire('GatewayLogging', metadata, spec).desired;
    const account = desire('GatewayAccount', { name: 'zt', account: ACCOUNT }, undefined).desired;
    const elsewhere = desire('GatewayAccount', { name: 'zt', account: 'fedcba9876543210fedcba9876543210' }, undefined).desired;
    expect(followed(self, [self, account, elsewhere])).toEqual([account.key]);
    expect(followed(self, [self])).toEqual([]);
  });

  it('has a schema that keeps settings_by_rule_type open but rejects typos at the top', () => {
    expect(schemaErrors(document('GatewayLogging', metadata, { settings_by_rule_type: { anything: { goes: 1 } } }))).toEqual([]);
    expect(schemaErrors(document('GatewayLogging', metadata, { redact_ppi: true }))).toContain('/spec must NOT have additional properties');
  });

  it('is read from the account’s logging settings, both fields the document’s', () => {
    expect(observedAs('GatewayLogging', spec, { account: ACCOUNT })).toEqual({ read: 'getLogging', params: { account_id: ACCOUNT }, request: spec });
  });
});
