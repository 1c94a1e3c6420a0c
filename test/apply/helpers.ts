// Fakes for the executor's tests: a clock that records sleeps, a scripted client, API-shaped errors,
// plan actions, and a logger that keeps every line.

import type { Outcome } from '../../src/kinds/kind.js';
import type { Action, Plan } from '../../src/plan/types.js';
import type { Clock } from '../../src/util/clock.js';
import { createExecutor, type ExecutorOptions, type OperationCaller } from '../../src/apply/index.js';
import { FakeState } from './fake-state.js';

/** Virtual time: a sleep is recorded and moves the clock forward at once. */
export class FakeClock implements Clock {
  t = 1_700_000_000_000;
  readonly sleeps: number[] = [];
  now(): number {
    return this.t;
  }
  async sleep(ms: number, signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    this.sleeps.push(ms);
    this.t += ms;
    await new Promise((r) => setImmediate(r));
    signal?.throwIfAborted();
  }
}

/** Shaped like src/api's ApiError (duck-typed by the executor). */
class FakeApiError extends Error {
  readonly errors = [];
  constructor(
    message: string,
    readonly kind: 'http' | 'network' | 'timeout',
    readonly reachedServer: boolean,
    readonly status?: number,
    readonly retryAfterMs?: number,
    readonly networkCode?: string,
  ) {
    super(message);
  }
}

export const httpError = (status: number, retryAfterMs?: number) => new FakeApiError(`server answered ${status}`, 'http', true, status, retryAfterMs);
export const refused = () => new FakeApiError('connect ECONNREFUSED 127.0.0.1:1', 'network', false);
export const reset = () => new FakeApiError('socket hang up (ECONNRESET)', 'network', true);
export const timedOut = () => new FakeApiError('timed out after 30000 ms', 'timeout', true);
/** As the client says a failure that never connected: `code` ECONNREFUSED, ENOTFOUND, EAI_AGAIN, …. */
export const noConnection = (code: string) => new FakeApiError(`updateRoute (PUT /x) failed (${code})`, 'network', false, undefined, undefined, code);
export const connectionReset = () => new FakeApiError('updateRoute (PUT /x) failed: connection reset (ECONNRESET)', 'network', true, undefined, undefined, 'ECONNRESET');

interface Call {
  readonly op: string;
  readonly action: string;
  readonly body: unknown;
  readonly at: number;
}

export type Script = (call: Call, n: number) => unknown | Promise<unknown>;

/**
 * A client whose answer is `script(call, n)` (n counts calls of that action from 1); a thrown
 * error is the failure. Every call waits a turn of the event loop, so calls can overlap.
 */
export function fakeClient(clock: Clock, script: Script, events: string[] = []) {
  const calls: Call[] = [];
  const perAction = new Map<string, number>();
  let inFlight = 0;
  let maxInFlight = 0;
  const client: OperationCaller = {
    async call(op, params, body) {
      const action = params.__action ?? op;
      const n = (perAction.get(action) ?? 0) + 1;
      perAction.set(action, n);
      const call = { op, action, body, at: clock.now() };
      calls.push(call);
      events.push(`call ${action}`);
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      try {
        await new Promise((r) => setImmediate(r));
        return await script(call, n);
      } finally {
        inFlight--;
      }
    },
  };
  return { client, calls, maxInFlight: () => maxInFlight };
}

/** An action of a plan; `name` makes the resource `Kind/name` and the id `Kind/name#change`. */
export function action(name: string, over: Partial<Action> = {}): Action {
  const kind = over.kind ?? 'WorkerRoute';
  const change = over.change ?? 'write';
  const resource = `${kind}/${name}`;
  return {
    id: `${resource}#${change}`,
    resource,
    kind,
    name,
    scope: {},
    needs: [],
    change,
    operation: 'updateRoute',
    params: { __action: `${resource}#${change}` },
    body: { pattern: `${name}.example.com/*` },
    diff: [],
    record: { request: { pattern: `${name}.example.com/*` }, hash: `hash-${name}` },
    ...over,
  };
}

/** A create (POST) of a GatewayList. */
export function createAction(name: string, over: Partial<Action> = {}): Action {
  return action(name, { kind: 'GatewayList', change: 'create', operation: 'createList', ...over });
}

export function plan(actions: readonly Action[], extra: Partial<Plan> = {}): Plan {
  return { actions, blocked: [], orphaned: [], uncertain: [], waiting: [], notes: [], unchanged: [], ...extra };
}

export function recordingLogger() {
  const lines: string[] = [];
  const at = (level: string) => (obj: object, msg?: string) => lines.push(JSON.stringify({ level, ...obj, msg }));
  return { logger: { info: at('info'), warn: at('warn'), error: at('error'), debug: at('debug') }, lines };
}

export interface Harness {
  readonly clock: FakeClock;
  readonly state: FakeState;
  readonly calls: Call[];
  readonly maxInFlight: () => number;
  readonly lines: string[];
  /** Calls and state writes, in the order they happened. */
  readonly events: string[];
  execute(p: Plan): ReturnType<ReturnType<typeof createExecutor>['execute']>;
}

/** An executor over fakes; `interpret` defaults to reading `result.id` as the remote id. */
export function harness(script: Script, options: Partial<ExecutorOptions> = {}): Harness {
  const clock = new FakeClock();
  const events: string[] = [];
  const state = new FakeState((e) => events.push(`${e.call} ${e.key ?? e.intentId}`));
  const { client, calls, maxInFlight } = fakeClient(clock, script, events);
  const { logger, lines } = recordingLogger();
  const interpret = (_: Action, result: unknown): Outcome => {
    const id = (result as { id?: unknown } | undefined)?.id;
    return typeof id === 'string' ? { remoteId: id } : {};
  };
  const executor = createExecutor({
    client,
    state,
    interpret,
    clock,
    logger,
    secretsDir: '/nonexistent/secrets',
    ...options,
    retry: { random: () => 1, ...options.retry },
  });
  return { clock, state, calls, maxInFlight, lines, events, execute: (p) => executor.execute(p) };
}
