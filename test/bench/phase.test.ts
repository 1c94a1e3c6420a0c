// The phase runner (its arguments and what it counts) and the /proc readings the benchmark takes.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { describe, expect, inject, it } from 'vitest';
import { writeKvDocument, writePairsFile } from '../../bench/generate.js';
import { parsePhaseArgs, runPhase } from '../../bench/phase.js';
import { startEmulator } from '../../src/emulator/index.js';
import { spawnSync } from 'node:child_process';
import { processCpuMs, processPeakRssBytes, processTreeCpuMs } from '../../bench/processes.js';
import { parseBenchArgs } from '../../bench/main.js';
import { checkKvBenchOptions } from '../../bench/kv-bench.js';

describe('the benchmark command lines', () => {
  it('reads a phase mode with its config, state, base URL and rate limit', () => {
    expect(parsePhaseArgs(['apply', '--config', 'c', '--state', 's.db', '--base-url', 'http://x/client/v4', '--rate-limit', '100/10'])).toEqual({
      mode: 'apply',
      config: 'c',
      state: 's.db',
      baseUrl: 'http://x/client/v4',
      rateLimit: '100/10',
    });
    expect(() => parsePhaseArgs(['apply', '--config', 'c', '--state', 's.db', '--rate-limit', 'fast'])).toThrow('Expected `--rate-limit`');
    expect(parsePhaseArgs(['plan', '--config', 'c', '--state', 's.db'])).toEqual({ mode: 'plan', config: 'c', state: 's.db' });
    expect(parsePhaseArgs(['plan', '--config', 'c', '--state', 'postgres://db/x', '--workspace', 'bench'])).toEqual({
      mode: 'plan',
      config: 'c',
      state: 'postgres://db/x',
      workspace: 'bench',
    });
  });

  it('refuses an unknown mode, a flag without a value and a missing state', () => {
    expect(() => parsePhaseArgs(['sync', '--config', 'c', '--state', 's'])).toThrow("Expected `mode` to be 'plan' or 'apply'");
    expect(() => parsePhaseArgs(['plan', '--config'])).toThrow('--flag value pairs');
    expect(() => parsePhaseArgs(['plan', '--config', 'c'])).toThrow('Expected `state`');
  });

  it('reads the benchmark flags as numbers and refuses unknown ones', () => {
    expect(parseBenchArgs(['--pairs', '5000', '--changed', '0.02'])).toEqual({
      kv: { pairs: [5000], changed: 0.02 },
      pacing: {},
      takeover: {},
      gitops: {},
      resources: {},
      latency: {},
      import: {},
      refresh: {},
    });
    expect(parseBenchArgs(['--calls', '60', '--rate', '10/1', '--only', 'pacing'])).toEqual({
      kv: {},
      pacing: { calls: 60, rate: '10/1' },
      takeover: {},
      gitops: {},
      resources: {},
      latency: {},
      import: {},
      refresh: {},
      only: 'pacing',
    });
    expect(parseBenchArgs(['--kills', '3', '--only', 'takeover'])).toEqual({
      kv: {},
      pacing: {},
      takeover: { kills: 3 },
      gitops: {},
      resources: {},
      latency: {},
      import: {},
      refresh: {},
      only: 'takeover',
    });
    expect(parseBenchArgs(['--pushes', '5', '--only', 'gitops'])).toEqual({
      kv: {},
      pacing: {},
      takeover: {},
      gitops: { pushes: 5 },
      resources: {},
      latency: {},
      import: {},
      refresh: {},
      only: 'gitops',
    });
    expect(() => parseBenchArgs(['--pair', '5'])).toThrow('Expected `arguments`');
    expect(() => parseBenchArgs(['--only', 'all'])).toThrow("Expected `only` to be 'kv', 'pacing', 'takeover', 'gitops', 'resources', 'latency', 'import' or 'refresh'");
  });

  it('reads which state backends the KV bench measures, each once', () => {
    expect(parseBenchArgs(['--backends', 'postgres', '--only', 'kv'])).toEqual({
      kv: { backends: ['postgres'] },
      pacing: {},
      takeover: {},
      gitops: {},
      resources: {},
      latency: {},
      import: {},
      refresh: {},
      only: 'kv',
    });
    expect(parseBenchArgs(['--backends', 'sqlite,postgres']).kv.backends).toEqual(['sqlite', 'postgres']);
    expect(() => parseBenchArgs(['--backends', 'sqlite,mysql'])).toThrow("Expected `backends` to be a non-empty list of 'sqlite' and 'postgres', each once");
    expect(() => parseBenchArgs(['--backends', 'sqlite,sqlite'])).toThrow('Expected `backends`');
  });

  it('reads a list of pairs counts and the source formats, and refuses what is not one', () => {
    expect(parseBenchArgs(['--pairs', '1000000,5000000,10000000', '--formats', 'jsonl']).kv).toEqual({ pairs: [1_000_000, 5_000_000, 10_000_000], formats: ['jsonl'] });
    expect(parseBenchArgs(['--formats', 'json,jsonl']).kv.formats).toEqual(['json', 'jsonl']);
    expect(() => parseBenchArgs(['--pairs', '1000000,1e6x'])).toThrow('Expected `pairs` to be whole numbers separated by commas, as 1000000,5000000, got `1000000,1e6x` (string)');
    expect(() => parseBenchArgs(['--pairs', '1000,'])).toThrow('Expected `pairs`');
    expect(() => parseBenchArgs(['--pairs', '0'])).toThrow('Expected `pairs` to be a whole number of at least 1, or a non-empty list of them, each once');
    expect(() => parseBenchArgs(['--pairs', '1000,1000'])).toThrow('each once');
    expect(() => parseBenchArgs(['--formats', 'csv'])).toThrow("Expected `formats` to be a non-empty list of 'json' and 'jsonl', each once, got `[\"csv\"]` (array)");
    expect(() => parseBenchArgs(['--formats', 'json,json'])).toThrow('Expected `formats`');
  });

  it('checks the KV options eagerly: pairs one count or a list, formats and backends from their lists', () => {
    expect(checkKvBenchOptions({}).pairs).toEqual([1_000_000]);
    expect(checkKvBenchOptions({}).formats).toEqual(['json', 'jsonl']);
    expect(checkKvBenchOptions({ pairs: 3000 }).pairs).toEqual([3000]);
    expect(() => checkKvBenchOptions({ pairs: [] })).toThrow('Expected `pairs`');
    expect(() => checkKvBenchOptions({ pairs: [1000, 2.5] })).toThrow('Expected `pairs`');
    expect(() => checkKvBenchOptions({ formats: [] })).toThrow('Expected `formats`');
  });
});

describe('readings of a process from /proc', () => {
  it('reads CPU time that grows as the process works, and a peak RSS between the resident size and the lifetime maximum', () => {
    const before = processCpuMs(process.pid);
    let x = 0;
    const until = process.cpuUsage().user + 200_000;
    while (process.cpuUsage().user < until) x += Math.sqrt(x + 1);
    expect(x).toBeGreaterThan(0);
    expect(processCpuMs(process.pid)).toBeGreaterThan(before);
    // The peak (VmHWM) is at least the resident size read just before it, and about at most the
    // kernel's lifetime maximum (ru_maxrss also counts the time before exec, so it can be much
    // larger; it catches up with the current peak lazily, so it can trail it by a little).
    const resident = process.memoryUsage().rss;
    const read = processPeakRssBytes(process.pid);
    const lifetime = process.resourceUsage().maxRSS * 1024;
    expect(read).toBeGreaterThanOrEqual(resident - 4096);
    expect(read).toBeLessThanOrEqual(lifetime * 1.05);
  });
});

describe('the CPU time of a server and its sessions', () => {
  it('counts a child process that worked and exited, as a server counts a session that ended', () => {
    const [tree, own] = [processTreeCpuMs(process.pid), processCpuMs(process.pid)];
    spawnSync(process.execPath, ['-e', 'const until = Date.now() + 400; while (Date.now() < until);']);
    const grewBy = processTreeCpuMs(process.pid) - tree;
    expect(grewBy - (processCpuMs(process.pid) - own)).toBeGreaterThan(250);
  });
});

describe('a benchmark phase run in-process', () => {
  it('counts the requests of a first sync, then none for a no-op, with the plan figures', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgesync-bench-phase-'));
    const emu = await startEmulator({ tokens: ['bench-token'] });
    const saved = process.env.EDGESYNC_API_TOKEN;
    process.env.EDGESYNC_API_TOKEN = 'bench-token';
    try {
      writeKvDocument(dir);
      writePairsFile(dir, { pairs: 25_000 });
      const args = { config: dir, state: path.join(dir, '.edgesync', 'state.db'), baseUrl: emu.url };
      const planned = await runPhase({ mode: 'plan', ...args });
      expect([planned.actions, planned.requests]).toEqual([3, 0]);
      const first = await runPhase({ mode: 'apply', ...args });
      expect([first.actions, first.requests, first.failed]).toEqual([3, 3, 0]);
      expect(emu.requests().filter((r) => r.operation === 10)).toHaveLength(3);
      const noop = await runPhase({ mode: 'apply', ...args });
      expect([noop.actions, noop.requests]).toEqual([0, 0]);
      expect(first.maxRssBytes).toBeGreaterThan(0);
    } finally {
      if (saved === undefined) delete process.env.EDGESYNC_API_TOKEN;
      else process.env.EDGESYNC_API_TOKEN = saved;
      await emu.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('counts the same on a PostgreSQL state, its workspace named', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'edgesync-bench-phase-'));
    const emu = await startEmulator({ tokens: ['bench-token'] });
    const saved = process.env.EDGESYNC_API_TOKEN;
    process.env.EDGESYNC_API_TOKEN = 'bench-token';
    // A PostgreSQL state keeps its secrets folder under the working folder, as the bench's phases do.
    const cwd = process.cwd();
    process.chdir(dir);
    try {
      writeKvDocument(dir);
      writePairsFile(dir, { pairs: 15_000 });
      const args = { config: dir, state: inject('pgUrl'), workspace: `bench-${randomBytes(6).toString('hex')}`, baseUrl: emu.url };
      const first = await runPhase({ mode: 'apply', ...args });
      expect([first.actions, first.requests, first.failed]).toEqual([2, 2, 0]);
      const replan = await runPhase({ mode: 'plan', ...args });
      expect([replan.actions, replan.requests]).toEqual([0, 0]);
    } finally {
      process.chdir(cwd);
      if (saved === undefined) delete process.env.EDGESYNC_API_TOKEN;
      else process.env.EDGESYNC_API_TOKEN = saved;
      await emu.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
