import { describe, expect, it } from 'vitest';
import { desire, document, followed, schemaErrors } from './helpers.js';
import { putScenarios } from './scenarios.js';

const ZONE = '023e105f4ecef8ad9ca31a8372d0c353';
const metadata = { name: 'api-route', zone: ZONE, route: '9a7806061c88ada191ed06f989cc3dac' };
const spec = { pattern: 'example.com/api/*', script: 'api' };

describe('WorkerRoute', () => {
  putScenarios({
    kind: 'WorkerRoute',
    metadata,
    spec,
    changed: { ...spec, pattern: 'example.com/v2/*' },
    operation: 'updateRoute',
    params: { zone_id: ZONE, route_id: '9a7806061c88ada191ed06f989cc3dac' },
  });

  it('is identified by its zone and route', () => {
    expect(desire('WorkerRoute', metadata, spec).desired.key).toBe(`WorkerRoute[zone=${ZONE},route=9a7806061c88ada191ed06f989cc3dac]/api-route`);
  });

  it('follows the WorkerScript whose service is its script', () => {
    const self = desire('WorkerRoute', metadata, spec).desired;
    const script = desire(
      'WorkerScript',
      { name: 'api', account: 'a1', service: 'api', environment: 'production' },
      { body_part: 'w.js', modules: [{ name: 'w.js', content: '' }] },
    ).desired;
    expect(followed(self, [self, script])).toEqual([script.key]);
    expect(followed(desire('WorkerRoute', metadata, { pattern: 'x/*' }).desired, [script])).toEqual([]);
  });

  it('has a schema that requires the pattern and rejects a misspelt field', () => {
    expect(schemaErrors(document('WorkerRoute', metadata, spec))).toEqual([]);
    expect(schemaErrors(document('WorkerRoute', metadata, { script: 'api' }))).toContain("/spec must have required property 'pattern'");
    expect(schemaErrors(document('WorkerRoute', metadata, { ...spec, scirpt: 'api' }))).toContain('/spec must NOT have additional properties');
  });
});
