import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { harness, isoShape, messages } from './helpers.js';

const envelopeKeys = ['errors', 'messages', 'result', 'success'];
const content = '/accounts/acc/workers/services/api/environments/production/content';
const sha = (text: string): string => createHash('sha256').update(text).digest('hex');

interface PartSpec {
  readonly name: string;
  readonly text: string;
  readonly type?: string;
  /** Sent as a plain form field rather than a file part. */
  readonly field?: boolean;
}

function form(parts: PartSpec[]): FormData {
  const fd = new FormData();
  for (const p of parts) {
    if (p.field) fd.append(p.name, p.text);
    else fd.append(p.name, new Blob([p.text], { type: p.type ?? 'application/javascript+module' }), p.name);
  }
  return fd;
}

const metadata = (value: unknown): PartSpec => ({ name: 'metadata', text: JSON.stringify(value), type: 'application/json' });
const worker = 'export default { fetch() { return new Response("hi") } }';

describe('operation 1: script upload', () => {
  it('stores the modules with name, content type, size and sha256 and answers the script', async () => {
    const { call, emu } = await harness();
    const a = await call('PUT', content, undefined, {
      raw: form([metadata({ main_module: 'index.js', compatibility_date: '2030-01-01' }), { name: 'index.js', text: worker }, { name: 'lib.js', text: 'export const x = 1;' }]),
    });
    expect(a.status).toBe(200);
    expect(Object.keys(a.json).sort()).toEqual(envelopeKeys);
    expect(a.json.result).toMatchObject({ id: 'api', etag: expect.stringMatching(/^[0-9a-f]{64}$/), created_on: expect.stringMatching(isoShape) });
    const [script] = emu.state().scripts;
    expect(script).toMatchObject({ account: 'acc', service: 'api', environment: 'production', main_module: 'index.js', etag: a.json.result.etag });
    expect(script.metadata).toEqual({ main_module: 'index.js', compatibility_date: '2030-01-01' });
    expect(script.modules).toEqual([
      { name: 'index.js', content_type: 'application/javascript+module', size: worker.length, sha256: sha(worker), content: worker },
      { name: 'lib.js', content_type: 'application/javascript+module', size: 19, sha256: sha('export const x = 1;'), content: 'export const x = 1;' },
    ]);
  });

  it('keeps created_on, moves modified_on and changes the etag when the content changes', async () => {
    const { call, emu, advance } = await harness();
    const upload = (text: string) => call('PUT', content, undefined, { raw: form([metadata({ main_module: 'index.js' }), { name: 'index.js', text }]) });
    const first = (await upload(worker)).json.result;
    advance(1000);
    const same = (await upload(worker)).json.result;
    const changed = (await upload(`${worker}\n`)).json.result;
    expect(same.etag).toBe(first.etag);
    expect(changed.etag).not.toBe(first.etag);
    expect(changed.created_on).toBe(first.created_on);
    expect(changed.modified_on).not.toBe(first.modified_on);
    expect(emu.state().scripts).toHaveLength(1);
  });

  it('takes the service worker part from metadata body_part, with metadata sent as a plain field', async () => {
    const { call, emu } = await harness();
    const a = await call('PUT', content, undefined, {
      raw: form([
        { name: 'metadata', text: JSON.stringify({ body_part: 'script' }), field: true },
        { name: 'script', text: 'addEventListener("fetch", () => {})', type: 'application/javascript' },
      ]),
    });
    expect(a.status).toBe(200);
    expect(emu.state().scripts[0].main_module).toBe('script');
  });

  it('matches the main module by file name when modules come as files[] parts, as the provider SDK sends them', async () => {
    const { call, emu } = await harness();
    const fd = new FormData();
    fd.append('metadata', new Blob([JSON.stringify({ main_module: 'src/index.js' })], { type: 'application/json' }), 'metadata.json');
    fd.append('files[]', new Blob([worker], { type: 'application/javascript+module' }), 'src/index.js');
    fd.append('files[]', new Blob(['export const x = 1;'], { type: 'application/javascript+module' }), 'lib.js');
    const a = await call('PUT', content, undefined, { raw: fd });
    expect(a.status, JSON.stringify(a.json)).toBe(200);
    const [script] = emu.state().scripts;
    expect(script.main_module).toBe('src/index.js');
    expect(script.modules.map((m) => m.name)).toEqual(['src/index.js', 'lib.js']);
    const missing = new FormData();
    missing.append('metadata', new Blob([JSON.stringify({ main_module: 'main.js' })], { type: 'application/json' }), 'metadata.json');
    missing.append('files[]', new Blob([worker], { type: 'application/javascript+module' }), 'index.js');
    const refused = await call('PUT', content, undefined, { raw: missing });
    expect(refused.status).toBe(400);
    expect(messages(refused)).toContain('metadata.main_module: names part "main.js", which is not in the upload');
  });

  it.each([['SVC-WORKER-MAIN-MODULE-PART'], ['SVC-WORKER-BODY-PART'], ['CF-WORKER-MAIN-MODULE-PART'], ['CF-WORKER-BODY-PART']])(
    'takes the main module from the %s header',
    async (header) => {
      const { call, emu } = await harness();
      const a = await call('PUT', content, undefined, { raw: form([metadata({}), { name: 'main.js', text: worker }]), headers: { [header]: 'main.js' } });
      expect(a.status).toBe(200);
      expect(emu.state().scripts[0].main_module).toBe('main.js');
    },
  );

  const refusals: [string, PartSpec[], Record<string, string>, string[]][] = [
    ['no metadata part', [{ name: 'index.js', text: worker }], { 'SVC-WORKER-MAIN-MODULE-PART': 'index.js' }, ['metadata: required part missing']],
    [
      'metadata that is not JSON',
      [
        { name: 'metadata', text: '{nope', type: 'application/json' },
        { name: 'index.js', text: worker },
      ],
      { 'SVC-WORKER-MAIN-MODULE-PART': 'index.js' },
      ['metadata: not valid JSON'],
    ],
    [
      'metadata that is not an object',
      [metadata(['index.js']), { name: 'index.js', text: worker }],
      { 'SVC-WORKER-MAIN-MODULE-PART': 'index.js' },
      ['metadata: expected a JSON object, got array'],
    ],
    [
      'no module part',
      [metadata({ main_module: 'index.js' })],
      {},
      ['body: at least one module part required', 'metadata.main_module: names part "index.js", which is not in the upload'],
    ],
    ['a main module named nowhere', [metadata({}), { name: 'index.js', text: worker }], {}, ['metadata.main_module: the main module is named nowhere']],
    [
      'a main module that names a missing part',
      [metadata({ main_module: 'main.js' }), { name: 'index.js', text: worker }],
      {},
      ['metadata.main_module: names part "main.js", which is not in the upload'],
    ],
    [
      'a header that names a missing part',
      [metadata({}), { name: 'index.js', text: worker }],
      { 'SVC-WORKER-BODY-PART': 'worker.js' },
      ['header SVC-WORKER-BODY-PART: names part "worker.js"'],
    ],
    [
      'a main_module of the wrong type',
      [metadata({ main_module: 1 }), { name: 'index.js', text: worker }],
      { 'SVC-WORKER-MAIN-MODULE-PART': 'index.js' },
      ['metadata.main_module: expected string, got number'],
    ],
  ];

  it.each(refusals)('refuses an upload with %s and stores nothing', async (_name, parts, headers, expected) => {
    const { call, emu } = await harness();
    const a = await call('PUT', content, undefined, { raw: form(parts), headers });
    expect(a.status).toBe(400);
    const got = messages(a);
    expect(got).toHaveLength(expected.length);
    expected.forEach((text, i) => expect(got[i].startsWith(text)).toBe(true));
    expect(emu.state().scripts).toEqual([]);
  });

  it('refuses a JSON body', async () => {
    const { call, emu } = await harness();
    const a = await call('PUT', content, { main_module: 'index.js' });
    expect(a.status).toBe(400);
    expect(messages(a)[0]).toContain('multipart/form-data');
    expect(emu.state().scripts).toEqual([]);
  });

  it('logs the part names of an upload', async () => {
    const { call, emu } = await harness();
    await call('PUT', content, undefined, { raw: form([metadata({ main_module: 'index.js' }), { name: 'index.js', text: worker }]) });
    expect(emu.requests()).toEqual([expect.objectContaining({ operation: 1, status: 200, parts: ['metadata', 'index.js'] })]);
    expect(emu.requests()[0].body).toBeUndefined();
  });
});
