// Models that answer bytes or take a file: an image's PNG is written byte for byte (state keeps only its
// type and size) and not run again; a speech model gets a file's bytes and runs again when they change.

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openStateStore } from '../../src/state/index.js';
import { apply, callsSince, emulator, workspace } from './harness.js';

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function imageRun() {
  const ws = workspace();
  for (const entry of fs.readdirSync(ws.root)) if (entry !== 'ai') fs.rmSync(path.join(ws.root, entry), { recursive: true });
  fs.writeFileSync(
    ws.file('ai/summary.yaml'),
    `apiVersion: edgesync/v1
kind: AiRun
metadata:
  name: hero-image
  account: 0123456789abcdef0123456789abcdef
  model: "@cf/stabilityai/stable-diffusion-xl-base-1.0"
spec:
  input:
    prompt: A lighthouse at dawn
  output: ../.out/hero.png
`,
  );
  return ws;
}

describe('an AI model that answers an image', () => {
  it('writes the PNG byte for byte, keeps only its type and size in state, and does not run it again', async () => {
    const emu = await emulator();
    const ws = imageRun();
    const first = await apply(ws, emu);
    expect(first.code, first.stdout + first.stderr).toBe(0);
    const png = fs.readFileSync(ws.file('.out/hero.png'));
    expect(png.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
    expect(fs.statSync(ws.file('.out/hero.png')).mode & 0o777).toBe(0o600);
    expect(first.stdout).toMatch(new RegExp(`output of AiRun\\[.*\\]/hero-image written to .*hero\\.png \\(received image/png, ${png.length} B\\)`));
    expect(
      emu
        .requests()
        .filter((r) => r.operation === 14)
        .map((r) => r.path),
    ).toEqual(['/client/v4/accounts/0123456789abcdef0123456789abcdef/ai/run/@cf/stabilityai/stable-diffusion-xl-base-1.0']);

    const store = await openStateStore({ file: ws.state, readOnly: true });
    try {
      expect((await store.list()).find((r) => r.kind === 'AiRun')?.memo).toEqual({ content_type: 'image/png', size: png.length });
    } finally {
      await store.close();
    }

    const mark = emu.requests().length;
    const second = await apply(ws, emu);
    expect(second.stdout).toMatch(/^No changes\./m);
    expect(callsSince(emu, mark)).toEqual([]);
  });

  it('refuses stream: true at validate, naming the field', async () => {
    const emu = await emulator();
    const ws = imageRun();
    fs.writeFileSync(
      ws.file('ai/summary.yaml'),
      fs.readFileSync(ws.file('ai/summary.yaml'), 'utf8').replace('    prompt: A lighthouse at dawn\n', '    prompt: A lighthouse at dawn\n    stream: true\n'),
    );
    const result = await apply(ws, emu);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/summary\.yaml:\d+:\d+ {2}spec\.input\.stream {2}stream: true asks for a streamed answer/);
    expect(emu.requests()).toEqual([]);
  });
});

describe('an AI model that takes a file', () => {
  it("gets the file's bytes with the type of its extension, and runs again only when the file changes", async () => {
    const emu = await emulator();
    const ws = imageRun();
    fs.writeFileSync(ws.file('ai/meeting.mp3'), Buffer.from([0xff, 0xfb, 0x90, 0x64, 0x00, 0x01, 0x02]));
    fs.writeFileSync(
      ws.file('ai/summary.yaml'),
      `apiVersion: edgesync/v1
kind: AiRun
metadata:
  name: transcript
  account: 0123456789abcdef0123456789abcdef
  model: "@cf/openai/whisper"
spec:
  inputFile: meeting.mp3
  output: ../.out/transcript.json
`,
    );
    const first = await apply(ws, emu);
    expect(first.code, first.stdout + first.stderr).toBe(0);
    expect(JSON.parse(fs.readFileSync(ws.file('.out/transcript.json'), 'utf8'))).toEqual({ text: expect.stringMatching(/^emulated transcript of 7 bytes/) });
    expect((await apply(ws, emu)).stdout).toMatch(/^No changes\./m);
    fs.appendFileSync(ws.file('ai/meeting.mp3'), Buffer.from([0x03]));
    const mark = emu.requests().length;
    expect((await apply(ws, emu)).code).toBe(0);
    expect(callsSince(emu, mark).map((r) => r.operation)).toEqual([14]);
  });

  it('refuses both input and inputFile, and a file outside the config root, at their fields', async () => {
    const emu = await emulator();
    const ws = imageRun();
    fs.writeFileSync(ws.file('ai/summary.yaml'), fs.readFileSync(ws.file('ai/summary.yaml'), 'utf8').replace('  output:', '  inputFile: ../../outside.mp3\n  output:'));
    const result = await apply(ws, emu);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/spec\.inputFile {2}give either input or inputFile, not both/);
    expect(result.stderr).toMatch(/spec\.inputFile {2}.*leaves the config root/);
    expect(emu.requests()).toEqual([]);
  });
});
