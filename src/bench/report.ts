// The benchmark's output: the machine line, one markdown table of the phases, and the goals
// (no-op re-plan time and memory, first sync bounded by the emulator) stated against the figures.

import os from 'node:os';
import type { PhaseReport } from './phase.js';

export interface PhaseRow {
  readonly label: string;
  readonly report: PhaseReport;
  /** Requests the emulator logged during the phase. */
  readonly emulatorRequests: number;
  /** CPU milliseconds the emulator process spent during the phase. */
  readonly emulatorCpuMs: number;
}

const MIB = 1024 * 1024;
export const seconds = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;
const mib = (bytes: number): string => `${Math.round(bytes / MIB).toLocaleString('en-US')} MiB`;

export function machineLine(): string {
  const cpus = os.cpus();
  const model = cpus[0]?.model.trim() ?? 'unknown CPU';
  // Other work on the machine slows every figure: the 1-minute load average says how busy it was.
  const load = os.loadavg()[0].toFixed(2);
  return `Machine: ${cpus.length} cores (${model}), ${(os.totalmem() / 1024 ** 3).toFixed(1)} GiB RAM, Node ${process.version}, ${os.platform()} ${os.release()}; load average ${load} at the end`;
}

export function renderTable(rows: readonly PhaseRow[]): string {
  const head = ['phase', 'wall', 'load', 'state + plan', 'apply', 'requests', 'edgesync peak RSS', 'edgesync CPU', 'emulator CPU'];
  const lines = [`| ${head.join(' | ')} |`, `|${head.map((_, i) => (i === 0 ? ' --- ' : ' ---: ')).join('|')}|`];
  for (const { label, report: r, emulatorRequests, emulatorCpuMs } of rows) {
    const requests = emulatorRequests === r.requests ? `${r.requests}` : `${emulatorRequests} (client counted ${r.requests})`;
    const apply = r.mode === 'apply' ? seconds(r.applyMs) : '–';
    const cells = [label, seconds(r.ms), seconds(r.loadMs), seconds(r.planMs), apply, requests, mib(r.maxRssBytes), seconds(r.cpuMs), seconds(emulatorCpuMs)];
    lines.push(`| ${cells.join(' | ')} |`);
  }
  return lines.join('\n');
}

export const verdict = (ok: boolean): string => (ok ? 'met' : 'MISSED');

/** The goals of the brief, each with the figure that shows it. */
export function renderGoals(replan: PhaseReport, firstSync: PhaseRow, noop: PhaseRow): string[] {
  const apply = firstSync.report;
  const { applyCpuMs } = apply;
  return [
    `- No-op re-plan under 5 s: ${seconds(replan.ms)} (${verdict(replan.ms < 5000)}); under 1 GiB RSS: ${mib(replan.maxRssBytes)} (${verdict(replan.maxRssBytes < 1024 * MIB)}).`,
    `- No-op re-sync sends 0 requests: ${noop.emulatorRequests} (${verdict(noop.emulatorRequests === 0 && noop.report.requests === 0)}).`,
    `- First sync bounded by the emulator: during the apply part (${seconds(apply.applyMs)} wall) edgesync used ${seconds(applyCpuMs)} CPU ` +
      `(${seconds(apply.cpuMs)} over the whole phase, load + plan included), the emulator ${seconds(firstSync.emulatorCpuMs)} ` +
      `(${verdict(firstSync.emulatorCpuMs > applyCpuMs)}).`,
  ];
}
