import { Agent, type Dispatcher, request } from 'undici';
import type { z } from 'zod';
import { CallsReply, CopyView, PrepareReply, UsageReconciliation, type Call, type EnterBody } from './runner-api.schema.js';
import { RUNNER_KEY_HEADER, runnerKey } from './runner-key.js';
import { RunnerRefusal } from './runner-refusal.js';

// The room's client of the runner's internal API (docs/runner.md). Replies are checked with the
// runner's own schemas. A refusal (4xx/5xx) throws RunnerRefusal with the runner's words.

export interface RunnerClientOptions {
  /** RUNNER_URL, e.g. http://127.0.0.1:8081 */
  baseUrl: string;
  /** APP_SECRET: the key is derived from it (runner-key.ts). */
  appSecret: string;
  /** Per request, on top of any long-poll wait (ms). */
  timeoutMs?: number;
}

/** How long the client waits for an answer on top of any long-poll wait (ms), unless told otherwise. */
const RUNNER_CALL_TIMEOUT_MS = 15_000;

/**
 * When the client gives up on a call (ms since the epoch, its own clock): the runner starts
 * nothing for an ask still undecided past it. A runner too busy to have read the request for a
 * while, or to have seen its socket close, cannot tell otherwise that the viewer has gone.
 */
export const RUNNER_DEADLINE_HEADER = 'x-runner-deadline';

export type RunnerClient = ReturnType<typeof createRunnerClient>;

/** Connections the room keeps to one runner host, and calls each carries at once (HTTP/2 streams). */
const CONNECTIONS_PER_HOST = 4;
const CALLS_PER_CONNECTION = 1000;

let transport: Dispatcher | undefined;

/** The connector's option for h2c (undici 7 reads it, lib/core/connect.js; its types leave it out). */
const H2C = { useH2c: true } as Agent.Options['connect'];

/**
 * Every runner call goes over cleartext HTTP/2 (h2c, prior knowledge; the runner's port speaks
 * it beside HTTP/1.1: services/core/infra/http/h2c.ts), a crowd's calls as streams of a few
 * connections a host: over HTTP/1.1 each held long-poll was a connection, and 10,000 viewers at
 * once overflowed the hosts' listen queues (docs/scale.md, "Ninth round"). An https runner URL
 * negotiates HTTP/2 by ALPN. One transport per process, shared by every runner client in it.
 */
function runnerTransport(): Dispatcher {
  return (transport ??= new Agent({
    connections: CONNECTIONS_PER_HOST,
    allowH2: true,
    connect: H2C,
    maxConcurrentStreams: CALLS_PER_CONNECTION,
    pipelining: CALLS_PER_CONNECTION,
  }));
}

/** Calls to one runner, replies checked by `schema`; a refusal throws RunnerRefusal. */
function callerOf(opts: RunnerClientOptions) {
  const base = opts.baseUrl.replace(/\/$/, '');
  const key = runnerKey(opts.appSecret);
  const timeout = opts.timeoutMs ?? RUNNER_CALL_TIMEOUT_MS;

  return async function call<T extends z.ZodType>(
    schema: T,
    method: string,
    path: string,
    body?: unknown,
    waitMs = 0,
  ): Promise<z.output<T>> {
    // undici's request, not fetch: a crowd's calls are many and small, and fetch's Request,
    // Headers and streams cost more than the call itself (docs/scale.md).
    const res = await request(base + path, {
      method: method as Dispatcher.HttpMethod,
      headers: {
        [RUNNER_KEY_HEADER]: key,
        [RUNNER_DEADLINE_HEADER]: String(Date.now() + timeout + waitMs),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: body !== undefined ? JSON.stringify(body) : undefined,
      signal: AbortSignal.timeout(timeout + waitMs),
      dispatcher: runnerTransport(),
      // Every runner call may be sent beside others on a connection: undici holds a call it is
      // not told is idempotent until the connection's other calls are done, one at a time even
      // over HTTP/2. Each is safe to repeat: an enter or leave is keyed by its session.
      idempotent: true,
    });
    const status = res.statusCode;
    const text = await res.body.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new RunnerRefusal(status, `runner answered ${status} without JSON`);
    }
    if (status >= 400) {
      const e = json as { error?: string; detail?: string; copy?: unknown };
      const copy = CopyView.safeParse(e.copy);
      throw new RunnerRefusal(
        status,
        [e.error, e.detail].filter(Boolean).join(': ') || `runner answered ${status}`,
        copy.success ? copy.data : undefined,
      );
    }
    return schema.parse(json);
  };
}

export function createRunnerClient(opts: RunnerClientOptions) {
  const call = callerOf(opts);
  const q = (params: Record<string, string | number | undefined>) => {
    const s = new URLSearchParams(
      Object.entries(params)
        .filter(([, v]) => v !== undefined)
        .map(([k, v]) => [k, String(v)]),
    ).toString();
    return s ? `?${s}` : '';
  };
  const session = (id: string) => `/sessions/${encodeURIComponent(id)}`;

  return {
    /** A viewer enters: their copy (the same one on every call for a session). `waitMs` waits for a start to settle. */
    enter(sessionId: string, body: EnterBody, waitMs?: number): Promise<CopyView> {
      return call(CopyView, 'POST', `${session(sessionId)}/copy${q({ wait: waitMs })}`, body, waitMs);
    },
    /** The copy now; with `seen` (a view's version) and `waitMs`, once it differs from that view. */
    copy(sessionId: string, wait?: { seen: string; waitMs: number }): Promise<CopyView> {
      return call(CopyView, 'GET', `${session(sessionId)}/copy${q({ wait: wait?.waitMs, seen: wait?.seen })}`, undefined, wait?.waitMs);
    },
    /** Activity (proxied requests, open WebSockets, the shell's heartbeat): keeps the copy awake, wakes a paused one. */
    activity(sessionId: string): Promise<CopyView> {
      return call(CopyView, 'POST', `${session(sessionId)}/activity`);
    },
    /** Runs controls and story calls in order on the session's copy; each call's outcome. */
    calls(sessionId: string, calls: Call[]): Promise<CallsReply> {
      return call(CallsReply, 'POST', `${session(sessionId)}/calls`, { calls }, 60_000);
    },
    /** The viewer left. */
    leave(sessionId: string): Promise<CopyView> {
      return call(CopyView, 'DELETE', `${session(sessionId)}/copy`);
    },
    /** A build went live: load its image now and fill its warm pool (best effort). */
    prepare(buildId: string, waitMs?: number): Promise<PrepareReply> {
      return call(PrepareReply, 'POST', `/builds/${encodeURIComponent(buildId)}/prepare${q({ wait: waitMs })}`, undefined, waitMs);
    },
  };
}

/**
 * One host's billed seconds against its engine's record since `since`: each difference and a
 * summary (the operator's `npm run ops -- usage reconcile`, host by host; not a viewer's call, so
 * not in RunnerClient, which the fleet client routes by session).
 */
export function reconcileUsageAt(opts: RunnerClientOptions, since: Date): Promise<UsageReconciliation> {
  return callerOf(opts)(UsageReconciliation, 'POST', '/usage/reconcile', { since: since.toISOString() }, 120_000);
}

/**
 * Activity reports, at most one per session per `everyMs`: the proxy sees every request and
 * WebSocket frame, the runner needs to hear about them only now and then.
 */
export function throttledActivity(report: (sessionId: string) => Promise<unknown>, everyMs = 10_000) {
  const last = new Map<string, number>();
  return (sessionId: string) => {
    const now = Date.now();
    if (now - (last.get(sessionId) ?? 0) < everyMs) return;
    last.set(sessionId, now);
    if (last.size > 10_000) for (const [k, t] of last) if (now - t > everyMs) last.delete(k);
    report(sessionId).catch(() => {});
  };
}

export type { Call, CopyView, EnterBody, PrepareReply, CallsReply };
export { RunnerRefusal };
