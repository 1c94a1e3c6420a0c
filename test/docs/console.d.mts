// Types of console.mjs, which node runs as it is (scripts/docs-transcripts.mjs) and the tests import.

export interface FencedBlock {
  readonly tag: string;
  readonly line: number;
  readonly end: number;
  readonly body: string[];
  readonly notRun?: string;
}
export interface ConsoleStep {
  readonly command: string;
  readonly expected: string;
}
export interface ConsoleBlock {
  readonly line: number;
  readonly end: number;
  readonly notRun?: string;
  readonly steps: ConsoleStep[];
}
export interface StepResult extends ConsoleStep {
  readonly actual: string;
  readonly ok: boolean;
  readonly scratch: string;
}
export interface BlockResult {
  readonly line: number;
  readonly end?: number;
  readonly notRun?: string;
  readonly steps: StepResult[];
}
export interface RunDocumentOptions {
  readonly repo: string;
  readonly file: string;
  readonly startEmulator: (options: never) => Promise<{ readonly url: string; close(): Promise<void> }>;
  readonly commandTimeoutMs?: number;
  readonly settleMs?: number;
  readonly log?: (line: string) => void;
}

export function docFiles(repo: string): string[];
export function fencedBlocks(text: string): FencedBlock[];
export function consoleBlocks(text: string): ConsoleBlock[];
export function outputMatches(expected: string, actual: string): boolean;
export function freePort(): Promise<number>;
export function runDocument(options: RunDocumentOptions): Promise<BlockResult[]>;
export function asConsole(steps: readonly StepResult[], field?: 'actual' | 'expected'): string;
