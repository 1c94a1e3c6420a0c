// What a CI recipe's shell steps call besides edgesync, made small: `npm install` of edgesync, and the
// forge's side (`gh` for GitHub, `curl` to GitLab's API) answered from a world file the test reads.

import fs from 'node:fs';
import path from 'node:path';

/** What the forge holds: the comments written, the pull request a merge came from, the artifacts kept. */
export interface ForgeWorld {
  comments: string[];
  /** The merged pull request's head commit (GitHub) and iid (GitLab); absent: the commit came from none. */
  merged?: { readonly head: string; readonly iid: number };
  /** The run (GitHub) whose artifacts are kept, by its head commit. */
  planRun?: { readonly id: number; readonly head: string };
  /** Folder of the artifacts by name (GitHub) or job (GitLab). */
  readonly artifacts: string;
  /** Every call made, as its arguments. */
  calls: string[][];
}

const GH = String.raw`
const fs = require('node:fs'), path = require('node:path');
const file = process.env.FORGE_WORLD, world = JSON.parse(fs.readFileSync(file, 'utf8'));
const args = process.argv.slice(2);
world.calls.push(['gh', ...args]);
const save = () => fs.writeFileSync(file, JSON.stringify(world));
const flag = (name) => args[args.indexOf(name) + 1];
const fail = (why) => { save(); process.stderr.write('gh (test): ' + why + '\n'); process.exit(1); };
if (args[0] === 'pr' && args[1] === 'comment') {
  if (!/^\d+$/.test(args[2] ?? '')) fail('pr comment needs the pull request number, got ' + args[2]);
  world.comments.push(fs.readFileSync(flag('--body-file'), 'utf8'));
} else if (args[0] === 'api' && /^repos\/[^/]+\/[^/]+\/commits\/[0-9a-f]+\/pulls$/.test(args[1] ?? '') && flag('--jq') === '.[0].head.sha') {
  process.stdout.write(world.merged ? world.merged.head + '\n' : '\n');
} else if (args[0] === 'run' && args[1] === 'list' && flag('--workflow') === 'edgesync.yml' && flag('--jq') === '.[0].databaseId') {
  process.stdout.write(world.planRun && world.planRun.head === flag('--commit') && flag('--status') === 'success' ? world.planRun.id + '\n' : '\n');
} else if (args[0] === 'run' && args[1] === 'download') {
  if (!world.planRun || Number(args[2]) !== world.planRun.id) fail('no run ' + args[2]);
  const from = path.join(world.artifacts, flag('--name'));
  if (!fs.existsSync(from)) fail('no artifact ' + flag('--name'));
  fs.cpSync(from, process.cwd(), { recursive: true });
} else fail('not a call the recipes make: ' + args.join(' '));
save();
`;

const CURL = String.raw`
const fs = require('node:fs'), path = require('node:path');
const file = process.env.FORGE_WORLD, world = JSON.parse(fs.readFileSync(file, 'utf8'));
const args = process.argv.slice(2);
world.calls.push(['curl', ...args]);
const save = () => fs.writeFileSync(file, JSON.stringify(world));
const fail = (why) => { save(); process.stderr.write('curl (test): ' + why + '\n'); process.exit(22); };
const url = args.find((a) => a.startsWith('http'));
const flag = (name) => args[args.indexOf(name) + 1];
if (flag('--header') !== 'PRIVATE-TOKEN: ' + process.env.GITLAB_NOTES_TOKEN) fail('no PRIVATE-TOKEN header');
const api = process.env.CI_API_V4_URL + '/projects/' + process.env.CI_PROJECT_ID;
if (url === api + '/merge_requests/' + process.env.CI_MERGE_REQUEST_IID + '/notes' && flag('--request') === 'POST') {
  const body = flag('--data-urlencode');
  if (!body.startsWith('body@')) fail('the note is not read from a file');
  world.comments.push(fs.readFileSync(body.slice(5), 'utf8'));
  process.stdout.write('{}');
} else if (url === api + '/repository/commits/' + process.env.CI_COMMIT_SHA + '/merge_requests') {
  process.stdout.write(JSON.stringify(world.merged ? [{ iid: world.merged.iid }] : []));
} else if (world.merged && url === api + '/jobs/artifacts/refs%2Fmerge-requests%2F' + world.merged.iid + '%2Fhead/raw/plan.json?job=plan') {
  const from = path.join(world.artifacts, 'plan', 'plan.json');
  if (!fs.existsSync(from)) fail('no artifact');
  fs.copyFileSync(from, path.resolve(flag('--output')));
} else fail('not a call the recipes make: ' + url);
save();
`;

/**
 * Writes `edgesync` (the built command line), `npm` (which installs only edgesync, as a no-op), `gh`
 * and `curl` into `bin`; returns the world file they share.
 */
export function writeShims(bin: string, edgesyncBin: string, world: ForgeWorld): string {
  fs.mkdirSync(bin, { recursive: true });
  const node = process.execPath;
  const script = (name: string, text: string) => fs.writeFileSync(path.join(bin, name), text, { mode: 0o755 });
  script('edgesync', `#!/bin/sh\nexec "${node}" "${edgesyncBin}" "$@"\n`);
  script('npm', `#!/bin/sh\ncase "$*" in "install --global edgesync@"*) exit 0 ;; *) echo "npm (test): not a call the recipes make: $*" >&2; exit 1 ;; esac\n`);
  script('gh', `#!${node}\n${GH}`);
  script('curl', `#!${node}\n${CURL}`);
  const file = path.join(bin, 'world.json');
  fs.writeFileSync(file, JSON.stringify(world));
  return file;
}

export function readWorld(file: string): ForgeWorld {
  return JSON.parse(fs.readFileSync(file, 'utf8')) as ForgeWorld;
}
