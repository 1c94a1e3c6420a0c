// The CI recipes of examples/ci run as their forge would run them: each job's shell steps in order, in
// a fresh checkout, with the secrets as the emulator's; the forge's side (comments, artifacts, the
// merged pull request) answered by small stand-ins. A recipe whose steps stop working fails here.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { TOKEN, byHand, emulator } from '../e2e/harness.js';
import { readWorld, writeShims, type ForgeWorld } from './ci-shims.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const GITHUB = path.join(repo, 'examples/ci/github/.github/workflows/edgesync.yml');
const GITLAB = path.join(repo, 'examples/ci/gitlab/.gitlab-ci.yml');
const FIXTURE = path.join(repo, 'test/fixtures/e2e/all-kinds');
const SHA = 'a'.repeat(40);
const HEAD = 'b'.repeat(40);

interface Step {
  readonly name?: string;
  readonly uses?: string;
  readonly run?: string;
  readonly with?: Record<string, string | number>;
  readonly env?: Record<string, string>;
}
interface GithubJob {
  readonly if: string;
  readonly env?: Record<string, string>;
  readonly steps: readonly Step[];
}
interface GitlabJob {
  readonly rules: readonly { readonly if: string }[];
  readonly script: readonly string[];
  readonly artifacts?: { readonly paths: readonly string[]; readonly when?: string };
}
interface GitlabPipeline {
  readonly variables: Record<string, string>;
  readonly default: { readonly before_script: readonly string[] };
  readonly [job: string]: unknown;
}
interface JobResult {
  readonly code: number;
  readonly output: string;
  /** What the job wrote to its summary (GitHub), else its output. */
  readonly summary: string;
}

const temps: string[] = [];
afterEach(() => {
  for (const dir of temps.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** A place for one recipe's runs: the repository's content, the shared state, the shims and the artifacts. */
async function place() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgesync-ci-recipe-'));
  temps.push(dir);
  const emu = await emulator();
  const artifacts = path.join(dir, 'artifacts');
  fs.mkdirSync(artifacts);
  const world: ForgeWorld = { comments: [], artifacts, calls: [] };
  const worldFile = writeShims(path.join(dir, 'bin'), path.join(repo, 'bin/edgesync'), world);
  let runs = 0;
  /** A fresh checkout of the repository, as each job gets. */
  const checkout = () => {
    const at = path.join(dir, `checkout-${++runs}`);
    fs.cpSync(FIXTURE, at, { recursive: true });
    return at;
  };
  const secrets = { EDGESYNC_API_TOKEN: TOKEN, EDGESYNC_STATE: path.join(dir, 'state', 'state.db'), EDGESYNC_BASE_URL: emu.url };
  // Not spawnSync: the emulator answers from this process's event loop.
  const shell = (script: string, cwd: string, env: Record<string, string>): Promise<{ code: number; output: string }> =>
    new Promise((resolve) => {
      const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script], {
        cwd,
        env: { PATH: `${path.join(dir, 'bin')}:${process.env.PATH}`, HOME: dir, NO_COLOR: '1', FORGE_WORLD: worldFile, ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => (output += d));
      child.stderr.setEncoding('utf8').on('data', (d: string) => (output += d));
      child.on('close', (code) => resolve({ code: code ?? 1, output }));
    });
  return { dir, emu, artifacts, worldFile, checkout, secrets, shell, world: () => readWorld(worldFile) };
}

type Place = Awaited<ReturnType<typeof place>>;

/** `${{ expr }}` as the forge fills it; an expression the test does not know fails the test. */
function filled(text: string, context: Record<string, string>): string {
  return text.replace(/\$\{\{\s*([^}]+?)\s*\}\}/g, (_, expr: string) => {
    if (!(expr in context)) throw new Error(`the recipe uses \${{ ${expr} }}, which the test does not provide`);
    return context[expr]!;
  });
}

/** Runs a GitHub Actions job's steps in order, as the runner does, stopping at the first that fails. */
async function runGithubJob(
  p: Place,
  workflow: { env: Record<string, string>; jobs: Record<string, GithubJob> },
  name: string,
  event: string,
  context: Record<string, string>,
): Promise<JobResult> {
  const job = workflow.jobs[name]!;
  expect(job.if).toBe(`github.event_name == '${event}'`);
  const cwd = p.checkout();
  const summary = path.join(p.dir, `summary-${name}.md`);
  fs.writeFileSync(summary, '');
  const fill = (env: Record<string, string> = {}) => Object.fromEntries(Object.entries(env).map(([k, v]) => [k, filled(String(v), context)]));
  const base = { GITHUB_SERVER_URL: 'https://github.com', GITHUB_REPOSITORY: 'acme/edge-config', GITHUB_SHA: context['github.sha']!, GITHUB_STEP_SUMMARY: summary };
  let output = '';
  for (const step of job.steps) {
    if (step.uses) {
      const [action] = step.uses.split('@');
      if (action === 'actions/upload-artifact') {
        const into = path.join(p.artifacts, String(step.with!.name));
        fs.mkdirSync(into, { recursive: true });
        fs.copyFileSync(path.join(cwd, String(step.with!.path)), path.join(into, path.basename(String(step.with!.path))));
      } else expect(['actions/checkout', 'actions/setup-node']).toContain(action);
      continue;
    }
    const r = await p.shell(step.run!, cwd, { ...base, ...fill(workflow.env), ...fill(job.env), ...fill(step.env) });
    output += r.output;
    if (r.code !== 0) return { code: r.code, output, summary: fs.readFileSync(summary, 'utf8') };
  }
  return { code: 0, output, summary: fs.readFileSync(summary, 'utf8') };
}

/** Runs a GitLab CI job's script after the default before_script in one shell, keeping its artifacts when it succeeds. */
async function runGitlabJob(p: Place, pipeline: GitlabPipeline, name: string, source: string, variables: Record<string, string>): Promise<JobResult> {
  const job = pipeline[name] as GitlabJob;
  expect(JSON.stringify(job.rules)).toContain(source === 'push' ? '$CI_PIPELINE_SOURCE == \\"push\\"' : `$CI_PIPELINE_SOURCE == \\"${source}\\"`);
  const cwd = p.checkout();
  const script = [...pipeline.default.before_script, ...job.script].join('\n');
  const r = await p.shell(script, cwd, { ...pipeline.variables, ...variables, CI_PIPELINE_SOURCE: source });
  if (r.code === 0 || job.artifacts?.when === 'always') {
    for (const kept of job.artifacts?.paths ?? []) {
      fs.mkdirSync(path.join(p.artifacts, name), { recursive: true });
      fs.copyFileSync(path.join(cwd, kept), path.join(p.artifacts, name, kept));
    }
  }
  return { code: r.code, output: r.output, summary: r.output };
}

describe('the GitHub Actions recipe', () => {
  it('validates and comments the plan on a pull request, applies that plan on merge, and reports drift at night', { timeout: 120_000 }, async () => {
    const p = await place();
    const workflow = parse(fs.readFileSync(GITHUB, 'utf8'));
    const context = {
      'secrets.EDGESYNC_API_TOKEN': p.secrets.EDGESYNC_API_TOKEN,
      'secrets.EDGESYNC_STATE': p.secrets.EDGESYNC_STATE,
      'secrets.EDGESYNC_BASE_URL': p.secrets.EDGESYNC_BASE_URL,
      'github.token': 'ghs_test',
      'github.event.pull_request.number': '42',
    };

    // The pull request: validate needs no secret, then the plan is commented and kept.
    const validate = await runGithubJob(p, workflow, 'validate', 'pull_request', { ...context, 'github.sha': HEAD });
    expect(validate.code, validate.output).toBe(0);
    const plan = await runGithubJob(p, workflow, 'plan', 'pull_request', { ...context, 'github.sha': HEAD });
    expect(plan.code, plan.output).toBe(0);
    expect(p.emu.requests()).toEqual([]);
    const [comment] = p.world().comments;
    expect(comment).toMatch(/^## edgesync plan\n\n\| Create \| Update \| Delete \| Drift \| Blocked \| Needs a person \|/);
    expect(comment).toContain(`https://github.com/acme/edge-config/blob/${HEAD}/`);
    expect(plan.summary).toBe(comment);
    expect(p.world().calls.find((c) => c[0] === 'gh')).toEqual(['gh', 'pr', 'comment', '42', '--body-file', 'plan.md', '--edit-last', '--create-if-none']);

    // The merge: the plan of the pull request's last commit is applied, exactly.
    const saved = JSON.parse(fs.readFileSync(path.join(p.artifacts, 'edgesync-plan', 'plan.json'), 'utf8'));
    fs.writeFileSync(p.worldFile, JSON.stringify({ ...p.world(), merged: { head: HEAD, iid: 0 }, planRun: { id: 7, head: HEAD } }));
    const apply = await runGithubJob(p, workflow, 'apply', 'push', { ...context, 'github.sha': SHA });
    expect(apply.code, apply.output).toBe(0);
    expect(p.emu.requests().length).toBe(saved.actions.filter((a: { operation: string | null }) => a.operation !== null).length);
    // A second push of the same merge: the plan is stale, nothing is sent.
    const sent = p.emu.requests().length;
    const again = await runGithubJob(p, workflow, 'apply', 'push', { ...context, 'github.sha': SHA });
    expect(again.code).toBe(1);
    expect(again.output).toContain('is stale');
    expect(p.emu.requests().length).toBe(sent);

    // The night: in step, then a list edited by hand is drift, the job fails with the plan in its summary.
    const quiet = await runGithubJob(p, workflow, 'drift', 'schedule', { ...context, 'github.sha': SHA });
    expect(quiet.code, quiet.output).toBe(0);
    const list = p.emu.state().lists.find((l) => l.name === 'Blocked domains')!;
    await byHand(p.emu.url, 'PATCH', 'lists', String(list.id), { items: [{ value: 'malware.example.net' }, { value: 'added-by-hand.example.com' }] });
    const drift = await runGithubJob(p, workflow, 'drift', 'schedule', { ...context, 'github.sha': SHA });
    expect(drift.code).toBe(2);
    expect(drift.summary).toMatch(/\| 0 \| 1 \| 0 \| 1 \| 0 \| 0 \|/);
    expect(drift.summary).toContain('changed outside edgesync');
  });

  it('refuses to apply a push that no pull request reviewed', { timeout: 60_000 }, async () => {
    const p = await place();
    const workflow = parse(fs.readFileSync(GITHUB, 'utf8'));
    const context = {
      'secrets.EDGESYNC_API_TOKEN': TOKEN,
      'secrets.EDGESYNC_STATE': p.secrets.EDGESYNC_STATE,
      'secrets.EDGESYNC_BASE_URL': p.emu.url,
      'github.token': 't',
      'github.sha': SHA,
    };
    const apply = await runGithubJob(p, workflow, 'apply', 'push', context);
    expect(apply.code).toBe(1);
    expect(apply.output).toContain(`${SHA} came from no pull request: nothing reviewed to apply`);
    expect(p.emu.requests()).toEqual([]);
  });
});

describe('the GitLab CI recipe', () => {
  it('validates and notes the plan on a merge request, applies that plan on merge, and reports drift on schedule', { timeout: 120_000 }, async () => {
    const p = await place();
    const pipeline = parse(fs.readFileSync(GITLAB, 'utf8'));
    const ci = {
      ...p.secrets,
      GITLAB_NOTES_TOKEN: 'glpat-test',
      CI_API_V4_URL: 'https://gitlab.example.com/api/v4',
      CI_PROJECT_ID: '12',
      CI_PROJECT_URL: 'https://gitlab.example.com/acme/edge-config',
      CI_MERGE_REQUEST_IID: '5',
      CI_DEFAULT_BRANCH: 'main',
    };
    const validate = await runGitlabJob(p, pipeline, 'validate', 'merge_request_event', { ...ci, CI_COMMIT_SHA: HEAD });
    expect(validate.code, validate.output).toBe(0);
    const plan = await runGitlabJob(p, pipeline, 'plan', 'merge_request_event', { ...ci, CI_COMMIT_SHA: HEAD });
    expect(plan.code, plan.output).toBe(0);
    expect(p.world().comments[0]).toMatch(/^## edgesync plan\n/);
    expect(p.world().comments[0]).toContain(`https://gitlab.example.com/acme/edge-config/-/blob/${HEAD}/`);
    expect(p.emu.requests()).toEqual([]);

    fs.writeFileSync(p.worldFile, JSON.stringify({ ...p.world(), merged: { head: HEAD, iid: 5 } }));
    const apply = await runGitlabJob(p, pipeline, 'apply', 'push', { ...ci, CI_COMMIT_SHA: SHA, CI_COMMIT_BRANCH: 'main' });
    expect(apply.code, apply.output).toBe(0);
    expect(p.emu.requests().length).toBeGreaterThan(0);
    expect(p.emu.state().lists.map((l) => l.name)).toContain('Blocked domains');

    const quiet = await runGitlabJob(p, pipeline, 'drift', 'schedule', { ...ci, CI_COMMIT_SHA: SHA });
    expect(quiet.code, quiet.output).toBe(0);
    const list = p.emu.state().lists.find((l) => l.name === 'Blocked domains')!;
    await byHand(p.emu.url, 'PATCH', 'lists', String(list.id), { items: [{ value: 'malware.example.net' }, { value: 'added-by-hand.example.com' }] });
    const drift = await runGitlabJob(p, pipeline, 'drift', 'schedule', { ...ci, CI_COMMIT_SHA: SHA });
    expect(drift.code).toBe(2);
    expect(fs.readFileSync(path.join(p.artifacts, 'drift', 'drift.md'), 'utf8')).toContain('changed outside edgesync');
  });
});
