// A plan for a pull request: `plan --format markdown` prints the comment, `show FILE` renders a saved
// plan the same way, and both print the plan as text and JSON as `plan` does.

import fs from 'node:fs';
import path from 'node:path';
import { marked } from 'marked';
import { describe, expect, it } from 'vitest';
import { RESOURCES } from './fixture.js';
import { cli, workspace } from './harness.js';

describe('the plan as a pull request comment', () => {
  it('prints the Markdown comment, and a saved plan shows as the same comment, text and JSON', async () => {
    const ws = workspace();
    const file = path.join(ws.dir, 'plan.json');
    const markdown = await cli(['plan', ...ws.local, '--format', 'markdown', '--out', file, '--link-base', 'https://example.com/blob/abc/']);
    expect(markdown.code, markdown.stderr).toBe(0);
    const html = await marked.parse(markdown.stdout);
    expect(html).toMatch(/<th[^>]*>Create<\/th>/);
    expect(html).toContain(RESOURCES.UserProfile.key);
    expect(markdown.stdout).toMatch(/<a href="https:\/\/example\.com\/blob\/abc\/[^"]+\.yaml#L\d+">/);
    expect(markdown.stdout).not.toContain('dark_mode');

    const shown = await cli(['show', file, '--format', 'markdown', '--link-base', 'https://example.com/blob/abc/']);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toBe(markdown.stdout);

    const text = await cli(['plan', ...ws.local]);
    expect((await cli(['show', file])).stdout).toBe(text.stdout);
    expect(JSON.parse((await cli(['show', file, '--format', 'json'])).stdout)).toEqual(JSON.parse(fs.readFileSync(file, 'utf8')));
  });

  it('cuts a comment past --max-chars between resources and says where the whole plan is', async () => {
    const ws = workspace();
    const file = path.join(ws.dir, 'plan.json');
    const r = await cli(['plan', ...ws.local, '--format', 'markdown', '--max-chars', '2000', '--out', file]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.length).toBeLessThanOrEqual(2001);
    expect(r.stdout).toMatch(
      new RegExp(`more resources? left out to keep this comment under 2,000 characters: the saved plan ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} holds it whole`),
    );
  });

  it('refuses --json with another --format, and a file that is no saved plan', async () => {
    const ws = workspace();
    const both = await cli(['plan', ...ws.local, '--json', '--format', 'markdown']);
    expect(both.code).toBe(1);
    expect(both.stderr).toContain('Expected `--format` to be `json` with --json');
    const stray = path.join(ws.dir, 'notes.json');
    fs.writeFileSync(stray, '{"hello": 1}');
    const shown = await cli(['show', stray]);
    expect(shown.code).toBe(1);
    expect(shown.stderr).toContain(`${stray} is not a saved plan`);
  });
});
