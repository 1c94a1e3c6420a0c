// The console examples of the README and the guides, run as a reader would run them.
//
// A fenced block tagged `console` holds `$ command` lines, each followed by the output it prints
// (stdout and stderr together, as a terminal shows them). In the expected output `…` matches any
// run of characters within a line, and a line that is only `…` matches any number of lines
// (none included). A command continues on the next line after a trailing `\`, and a here-document
// (`<<'EOF'`) takes the lines up to its terminator. A block tagged `sh` is illustrative and never
// run; a `console` block is skipped only when the line before it is `<!-- not run: REASON -->`.
//
// The blocks of one file run in order, in one shell (so `export`, `cd` and `&` carry over), in a
// scratch folder holding a copy of examples/ and no state, with `edgesync` and `./bin/edgesync`
// running the built command line. The emulator the examples call at 127.0.0.1:8787 is one on a
// free port: started in-process by the caller, or, when the file starts one itself
// (`edgesync emulator`), that one. The daemon's default --listen (127.0.0.1:9300) is a free port
// too. Both ports are written 8787 and 9300 in what the commands are given and in what they print.
//
// A command ending in `&` runs in the background: its expected output is what it prints as it
// starts, waited for. A command whose comment is `# repeat until it shows this` (one that looks
// at what a daemon does in its own time) is run again while its output differs, for a while.
// Any other difference fails at once.
//
// Used by test/docs/console-examples.test.ts and scripts/docs-transcripts.mjs; plain JavaScript,
// so the script runs it without a build step.

import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

/** The documents whose console blocks are run: the README and every guide. */
export function docFiles(repo) {
  const docs = fs
    .readdirSync(path.join(repo, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort();
  return ['README.md', ...docs.map((f) => `docs/${f}`)];
}

/**
 * The fenced blocks of a Markdown text: tag, first line (1-based), contents (the fence's indent
 * taken off) and, for a block marked not run, the reason.
 */
export function fencedBlocks(text) {
  const lines = text.split('\n');
  const blocks = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})\s*([\w+-]*)/.exec(lines[i]);
    if (!open) continue;
    const [, indent, fence, tag] = open;
    const body = [];
    let j = i + 1;
    for (; j < lines.length && !(lines[j].trim().startsWith(fence) && lines[j].trim().replace(/[`~]/g, '') === ''); j++) {
      body.push(lines[j].startsWith(indent) ? lines[j].slice(indent.length) : lines[j].trimStart());
    }
    let before = i - 1;
    while (before >= 0 && lines[before].trim() === '') before--;
    const notRun = before >= 0 ? /^\s*<!--\s*not run:\s*(.+?)\s*-->\s*$/.exec(lines[before]) : null;
    blocks.push({ tag, line: i + 1, end: j + 1, body, ...(notRun && { notRun: notRun[1] }) });
    i = j;
  }
  return blocks;
}

/** Whether a command line goes on: a trailing backslash, or a here-document still open. */
function splitCommands(body) {
  const steps = [];
  let current;
  for (let i = 0; i < body.length; i++) {
    const line = body[i];
    if (line.startsWith('$ ') || line === '$') {
      const command = [line.slice(2)];
      while (/\\$/.test(command[command.length - 1]) && i + 1 < body.length) command.push(body[++i]);
      const heredoc = /<<-?\s*(['"]?)(\w+)\1/.exec(command.join('\n'));
      if (heredoc) {
        while (i + 1 < body.length) {
          const next = body[++i];
          command.push(next);
          if (next.trim() === heredoc[2]) break;
        }
      }
      current = { command: command.join('\n'), expected: [] };
      steps.push(current);
    } else if (current) {
      current.expected.push(line);
    } else if (line.trim() !== '') {
      throw new Error(`output before any command: ${JSON.stringify(line)}`);
    }
  }
  return steps.map((s) => ({ command: s.command, expected: trimLines(s.expected).join('\n') }));
}

/** Trailing spaces off each line, and trailing blank lines off the end. */
function trimLines(lines) {
  const out = lines.map((l) => l.replace(/\s+$/, ''));
  while (out.length && out[out.length - 1] === '') out.pop();
  return out;
}

/** The console blocks of one document, each with its commands and expected outputs. */
export function consoleBlocks(text) {
  return fencedBlocks(text)
    .filter((b) => b.tag === 'console')
    .map((b) => ({ line: b.line, end: b.end, notRun: b.notRun, steps: splitCommands(b.body) }));
}

const escapeRegExp = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Whether `actual` is what `expected` describes (`…` as above). */
export function outputMatches(expected, actual) {
  const e = trimLines(expected.split('\n'));
  const a = trimLines(actual.split('\n'));
  const patterns = e.map((l) => (l === '…' ? null : new RegExp(`^${l.split('…').map(escapeRegExp).join('.*')}$`, 's')));
  const memo = new Map();
  const from = (i, j) => {
    const key = i * (a.length + 1) + j;
    if (memo.has(key)) return memo.get(key);
    let ok;
    if (i === e.length) ok = j === a.length;
    else if (patterns[i] === null) ok = from(i + 1, j) || (j < a.length && from(i, j + 1));
    else ok = j < a.length && patterns[i].test(a[j]) && from(i + 1, j + 1);
    memo.set(key, ok);
    return ok;
  };
  return from(0, 0);
}

/** A free TCP port on loopback (free when asked; taken by whoever listens next). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Whether a command's text starts an emulator of its own. */
const startsEmulator = (command) => /(^|[\s/])edgesync\s+emulator\b/.test(command);
/** Whether a command runs in the background: a trailing `&` (a comment after it allowed), not `&&`. */
const inBackground = (command) => /(^|[^&])&\s*(#.*)?$/.test(command.split('\n').pop());
/** Whether a command says to repeat it until its output is the one shown. */
const repeated = (command) => /#\s*repeat until it shows this\s*$/.test(command.split('\n').pop());

/**
 * Runs the console blocks of `file` (relative to `repo`) in order, in one shell in a scratch folder.
 * `startEmulator` is src/emulator's (or dist's): called unless the file starts an emulator itself.
 * Returns, per block, each command with its expected and actual output and whether they match.
 */
export async function runDocument({ repo, file, startEmulator, commandTimeoutMs = 120_000, settleMs = 60_000, log = () => {} }) {
  const blocks = consoleBlocks(fs.readFileSync(path.join(repo, file), 'utf8'));
  const runnable = blocks.filter((b) => !b.notRun);
  if (runnable.length === 0) return [];
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'edgesync-docs-'));
  fs.cpSync(path.join(repo, 'examples'), path.join(scratch, 'examples'), { recursive: true });
  fs.rmSync(path.join(scratch, 'examples', '.out'), { recursive: true, force: true });
  fs.mkdirSync(path.join(scratch, 'bin'));
  const shim = path.join(scratch, 'bin', 'edgesync');
  fs.writeFileSync(shim, `#!/bin/sh\nexec '${process.execPath}' '${path.join(repo, 'bin', 'edgesync')}' "$@"\n`, { mode: 0o755 });

  const ownEmulator = runnable.some((b) => b.steps.some((s) => startsEmulator(s.command)));
  let emulator;
  if (!ownEmulator) emulator = await startEmulator({ port: 0, tokens: ['dev-token'], seed: 1 });
  const emulatorPort = emulator ? emulator.port : await freePort();
  const listenPort = await freePort();
  const toRun = (text) => text.replace(/\b8787\b/g, String(emulatorPort)).replace(/\b9300\b/g, String(listenPort));
  const asShown = (text) => text.replace(new RegExp(`\\b${emulatorPort}\\b`, 'g'), '8787').replace(new RegExp(`\\b${listenPort}\\b`, 'g'), '9300');

  const inherited = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(EDGESYNC_|LOG_LEVEL$|STAGING_|ACCOUNT_ID$|GIT_)/.test(k)));
  const env = {
    ...inherited,
    PATH: `${path.join(scratch, 'bin')}${path.delimiter}${process.env.PATH}`,
    NO_COLOR: '1',
    TZ: 'UTC',
    EDGESYNC_BASE_URL: `http://127.0.0.1:${emulatorPort}/client/v4`,
    EDGESYNC_API_TOKEN: 'dev-token',
    STAGING_API_TOKEN: 'dev-token',
    EDGESYNC_LISTEN: `127.0.0.1:${listenPort}`,
    GIT_AUTHOR_NAME: 'Docs',
    GIT_AUTHOR_EMAIL: 'docs@example.com',
    GIT_COMMITTER_NAME: 'Docs',
    GIT_COMMITTER_EMAIL: 'docs@example.com',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_CONFIG_COUNT: '1',
    GIT_CONFIG_KEY_0: 'init.defaultBranch',
    GIT_CONFIG_VALUE_0: 'main',
  };
  const shell = spawn('bash', ['--noprofile', '--norc'], { cwd: scratch, env, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
  let buffer = '';
  let exited = false;
  shell.stdout.setEncoding('utf8').on('data', (s) => (buffer += s));
  shell.stderr.setEncoding('utf8').on('data', (s) => (buffer += s));
  shell.on('exit', () => (exited = true));
  shell.stdin.write('exec 2>&1\n');

  /** Sends one command; resolves with what it printed up to its end marker. */
  const send = async (command) => {
    const mark = `__edgesync_docs_${randomBytes(6).toString('hex')}__`;
    // `:;` keeps a command that is only a comment a valid group; `$?` is still the command's.
    shell.stdin.write(`{ :;\n${command}\n} </dev/null\nprintf '\\n${mark} %d\\n' "$?"\n`);
    const deadline = Date.now() + commandTimeoutMs;
    const end = new RegExp(`\\n${mark} (\\d+)\\n`);
    for (;;) {
      const m = end.exec(buffer);
      if (m) {
        const out = buffer.slice(0, m.index);
        buffer = buffer.slice(m.index + m[0].length);
        return { output: out, code: Number(m[1]) };
      }
      if (exited) return { output: `${buffer}\n[the shell exited]`, code: -1 };
      if (Date.now() > deadline) return { output: `${buffer}\n[no end after ${commandTimeoutMs / 1000} s]`, code: -1 };
      await sleep(20);
    }
  };

  const results = [];
  try {
    for (const block of blocks) {
      if (block.notRun) {
        results.push({ line: block.line, notRun: block.notRun, steps: [] });
        continue;
      }
      const steps = [];
      for (const step of block.steps) {
        log(`${file}:${block.line}  $ ${step.command}`);
        const command = toRun(step.command);
        let { output } = await send(command);
        let actual = asShown(output);
        let ok = outputMatches(step.expected, actual);
        if (inBackground(step.command)) {
          // What it prints as it starts arrives after the shell has moved on.
          const deadline = Date.now() + settleMs;
          while (!ok && Date.now() < deadline) {
            await sleep(50);
            actual = asShown(output + buffer);
            ok = outputMatches(step.expected, actual);
          }
          buffer = '';
        } else if (repeated(step.command)) {
          const deadline = Date.now() + settleMs;
          while (!ok && Date.now() < deadline) {
            await sleep(500);
            ({ output } = await send(command));
            actual = asShown(output);
            ok = outputMatches(step.expected, actual);
          }
        }
        steps.push({ command: step.command, expected: step.expected, actual: trimLines(actual.split('\n')).join('\n'), ok, scratch });
      }
      results.push({ line: block.line, end: block.end, steps });
    }
  } finally {
    // The shell and whatever it left running (an emulator, a daemon) are one process group.
    const stop = (signal) => {
      try {
        process.kill(-shell.pid, signal);
      } catch {
        /* gone */
      }
    };
    stop('SIGTERM');
    const deadline = Date.now() + 15_000;
    while (!exited && Date.now() < deadline) await sleep(50);
    await sleep(200);
    stop('SIGKILL');
    if (emulator) await emulator.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  }
  return results;
}

/** A block's steps as a console block again, with the actual outputs (to paste from). */
export function asConsole(steps, field = 'actual') {
  return steps.map((s) => [`$ ${s.command}`, ...(s[field] ? [s[field]] : [])].join('\n')).join('\n');
}
