import { describe, expect, it } from 'vitest';
import type { ScriptUpload } from '../../src/kinds/worker-script.js';
import { contentHash } from '../../src/util/json.js';
import { ACCOUNT, applyDecision, desire, document, kindOf, observedAs, plan, schemaErrors, tempRoot } from './helpers.js';

const scope = { name: 'api', account: ACCOUNT, service: 'api', environment: 'production' };
const files = {
  'src/index.js': "import { greet } from './greeting.js';\nexport default { fetch: () => new Response(greet()) };\n",
  'src/greeting.js': "export const greet = () => 'hi';\n",
  'src/legacy.cjs': 'module.exports = 1;\n',
  'src/model.py': 'print(1)\n',
  'src/add.wasm': Buffer.from([0, 97, 115, 109]),
  'src/data.json': '{"a":1}',
  'src/blob.bin': Buffer.from([1, 2, 3]),
  'src/notes.txt': 'hello',
};

function esm(spec: Record<string, unknown> = {}, root = tempRoot(files)) {
  return desire(
    'WorkerScript',
    scope,
    {
      main_module: 'index.js',
      modules: [
        { name: 'index.js', file: 'src/index.js' },
        { name: 'greeting.js', file: 'src/greeting.js' },
      ],
      ...spec,
    },
    { root },
  );
}

describe('WorkerScript', () => {
  it('builds multipart parts from module files with contents, and a request holding only their hashes', () => {
    const { desired, issues } = esm();
    expect(issues).toEqual([]);
    const upload = desired.payload as ScriptUpload;
    expect(upload.metadata).toEqual({ main_module: 'index.js' });
    expect(upload.modules.map((m) => [m.name, m.contentType, m.content.toString()])).toEqual([
      ['index.js', 'application/javascript+module', files['src/index.js']],
      ['greeting.js', 'application/javascript+module', files['src/greeting.js']],
    ]);
    const request = desired.request as { modules: { name: string; sha256: string }[] };
    expect(JSON.stringify(request)).not.toContain('new Response');
    expect(request.modules[1]).toEqual({ name: 'greeting.js', content_type: 'application/javascript+module', sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
  });

  it('gives every part the content type of its extension', () => {
    const modules = Object.keys(files).map((file) => ({ name: file.slice(4), file }));
    const { desired, issues } = desire('WorkerScript', scope, { main_module: 'index.js', modules }, { root: tempRoot(files) });
    expect(issues).toEqual([]);
    const types = Object.fromEntries((desired.payload as ScriptUpload).modules.map((m) => [m.name, m.contentType]));
    expect(types).toEqual({
      'index.js': 'application/javascript+module',
      'greeting.js': 'application/javascript+module',
      'legacy.cjs': 'application/javascript',
      'model.py': 'text/x-python',
      'add.wasm': 'application/wasm',
      'data.json': 'application/json',
      'blob.bin': 'application/octet-stream',
      'notes.txt': 'text/plain',
    });
  });

  it('names the part in body_part and sends JavaScript as plain script in service-worker format', () => {
    const { desired, issues } = desire('WorkerScript', scope, { body_part: 'worker.js', modules: [{ name: 'worker.js', content: 'addEventListener()' }] });
    expect(issues).toEqual([]);
    const upload = desired.payload as ScriptUpload;
    expect(upload.metadata).toEqual({ body_part: 'worker.js' });
    expect(upload.modules[0]!.contentType).toBe('application/javascript');
  });

  it('reports a main module that is not one of the modules at spec.main_module, and a missing file at its path', () => {
    const { issues } = desire('WorkerScript', scope, { main_module: 'main.js', modules: [{ name: 'index.js', file: 'src/missing.js' }] });
    expect(issues.map((i) => i.path)).toEqual([
      ['spec', 'modules', 0, 'file'],
      ['spec', 'main_module'],
    ]);
    expect(issues[1]!.message).toContain('main.js');
  });

  it('refuses a module file outside the config root', () => {
    const { issues } = esm({ modules: [{ name: 'index.js', file: '../../etc/passwd' }] });
    expect(issues).toEqual([{ path: ['spec', 'modules', 0, 'file'], message: expect.stringContaining('leaves the config root') }]);
  });

  it('writes the whole upload on first apply, nothing when unchanged, and again when a module changes', () => {
    const root = tempRoot(files);
    const first = esm({}, root).desired;
    const decision = plan(first);
    expect(decision.actions.map((a) => [a.change, a.operation, a.params])).toEqual([
      ['write', 'putScriptContent', { account_identifier: ACCOUNT, service_name: 'api', environment_name: 'production' }],
    ]);
    expect(decision.actions[0]!.body).toBe(first.payload);
    const applied = applyDecision(first, undefined, { write: { id: 'api', etag: 'e1' } });
    expect(plan(first, applied).actions).toEqual([]);

    const changed = esm(
      {
        modules: [
          { name: 'index.js', file: 'src/index.js' },
          { name: 'greeting.js', content: 'export const greet = () => "hey";' },
        ],
      },
      root,
    ).desired;
    const again = plan(changed, applied);
    expect(again.actions.map((a) => a.change)).toEqual(['write']);
    expect(again.actions[0]!.diff.map((c) => c.path)).toEqual(['modules.1.sha256']);
  });

  it('refuses bindings, compatibility_date and every other metadata field, saying the operation uploads modules only', () => {
    const { issues } = esm({ metadata: { compatibility_date: '2025-01-15', bindings: [{ type: 'secret_text', name: 'KEY', text: 'hunter2' }] } });
    expect(issues.map((i) => i.path)).toEqual([
      ['spec', 'metadata', 'compatibility_date'],
      ['spec', 'metadata', 'bindings'],
    ]);
    expect(issues[1]!.message).toMatch(/^not taken: this operation uploads modules only, .*bindings is a script setting/);
    expect(JSON.stringify(issues)).not.toContain('hunter2');
  });

  it('takes the main module named in spec.metadata as in spec, and refuses two different names', () => {
    const { desired, issues } = desire('WorkerScript', scope, { metadata: { main_module: 'index.js' }, modules: [{ name: 'index.js', content: 'x' }] });
    expect(issues).toEqual([]);
    expect((desired.payload as ScriptUpload).metadata).toEqual({ main_module: 'index.js' });
    const both = esm({ metadata: { main_module: 'greeting.js' } });
    expect(both.issues).toEqual([{ path: ['spec', 'metadata', 'main_module'], message: 'expected the same main_module as spec.main_module (index.js), got greeting.js' }]);
    const none = desire('WorkerScript', scope, { metadata: {}, modules: [{ name: 'index.js', content: 'x' }] });
    expect(none.issues.map((i) => i.message)).toContain('expected main_module (ES modules) or body_part (service worker) naming the main module');
  });

  it('uploads once more, showing no secret hash, for a script an older build recorded with bindings', () => {
    const root = tempRoot(files);
    const desired = esm({}, root).desired;
    const current = applyDecision(desired, undefined, { write: { id: 'api' } });
    const request = current.request as { metadata: object };
    const olderRequest = { ...request, metadata: { ...request.metadata, bindings: [{ type: 'secret_text', name: 'KEY' }] }, secrets: { KEY: 'hmac-sha256:00ff' } };
    const older = { ...current, request: olderRequest, hash: contentHash(olderRequest) };
    const [action] = plan(desired, older).actions;
    expect(action!.change).toBe('write');
    expect(action!.diff).toContainEqual({ path: 'secrets', sensitive: true });
    expect(JSON.stringify(action!.diff)).not.toContain('00ff');
  });

  it('keeps the returned id and etag', () => {
    const { desired } = esm();
    const action = plan(desired).actions[0]!;
    expect(kindOf('WorkerScript').outcome(action, { id: 'api', etag: 'abc123', usage_model: 'bundled' }, { desired })).toEqual({ remoteId: 'api', etag: 'abc123' });
  });

  it('refuses both main_module and body_part; its schema refuses unknown module fields and a missing scope', () => {
    expect(desire('WorkerScript', scope, { main_module: 'a.js', body_part: 'a.js', modules: [{ name: 'a.js', content: 'x' }] }).issues).toEqual([
      { path: ['spec', 'body_part'], message: 'expected either main_module or body_part, not both' },
    ]);
    const good = document('WorkerScript', scope, { main_module: 'index.js', modules: [{ name: 'index.js', content: 'x' }] });
    expect(schemaErrors(good)).toEqual([]);
    expect(schemaErrors({ ...good, spec: { main_module: 'a.js', modules: [{ name: 'a.js', path: 'x.js' }] } })).not.toEqual([]);
    expect(schemaErrors({ ...good, metadata: { name: 'api', account: ACCOUNT, service: 'api' } })).toContain("/metadata must have required property 'environment'");
  });

  it('is read only for whether its service is listed: no module is compared', () => {
    const answer = { id: 'api', etag: 'e1', created_on: '2026-01-01T00:00:00Z', modified_on: '2026-01-01T00:00:00Z', usage_model: 'standard' };
    expect(observedAs('WorkerScript', answer, { account: ACCOUNT, service: 'api', environment: 'staging' })).toEqual({
      read: 'listScripts',
      params: { account_id: ACCOUNT },
      request: {},
    });
    expect(kindOf('WorkerScript').observe!.idFor!({ account: ACCOUNT, service: 'api', environment: 'staging' }, undefined, {})).toBe('api');
  });
});
