import type Docker from 'dockerode';
import { LABEL } from '@demo-rooms/contract/runner';
import type { CopyExit } from '../copy-engine.js';

// The Docker Engine API's /events, read here and nowhere else: the runner sees only parsed exits
// (CopyExit). Events come one JSON object a line (podman) or back to back (Docker); podman and
// Docker both report an OOM kill as its own `oom` event just before the `die`.

interface RawEvent {
  Type?: string;
  Action?: string;
  status?: string;
  id?: string;
  time?: number;
  Actor?: { ID?: string; Attributes?: Record<string, string> };
}

/** Splits the stream's text into whole JSON objects; the unfinished rest is kept for the next chunk. */
export function splitEvents(buffered: string): { events: string[]; rest: string } {
  const parts = buffered.replace(/}\s*{/g, '}\n{').split('\n');
  let rest = parts.pop() ?? '';
  const events = parts.filter((p) => p.trim());
  if (rest.trim().endsWith('}')) {
    try {
      JSON.parse(rest);
      events.push(rest);
      rest = '';
    } catch {
      // not complete yet
    }
  }
  return { events, rest };
}

/** Reads exits from one event stream; `oomSeen` carries the `oom` events until their `die`. */
export function exitOf(e: RawEvent, oomSeen: Set<string>): CopyExit | null {
  if (e.Type !== 'container') return null;
  const action = e.Action ?? e.status ?? '';
  const handle = e.Actor?.ID ?? e.id ?? '';
  const attrs = e.Actor?.Attributes ?? {};
  const copyId = attrs[LABEL.copy];
  if (!copyId) return null;
  if (action === 'oom') {
    oomSeen.add(handle);
    return null;
  }
  if (action !== 'die') return null;
  const code = attrs.exitCode ?? attrs.containerExitCode;
  return { copyId, handle, exitCode: code === undefined ? null : Number(code), oom: oomSeen.delete(handle), at: e.time };
}

/** This runner's copies' exits, once the engine has opened the stream (outside the call limit: it is one long request). */
export async function dockerExits(
  docker: Docker,
  runnerId: string,
  opts: { since?: number; signal?: AbortSignal } = {},
): Promise<AsyncIterable<CopyExit>> {
  const stream = (await docker.getEvents({
    ...(opts.since ? { since: opts.since } : {}),
    filters: JSON.stringify({ type: ['container'], label: [`${LABEL.runner}=${runnerId}`] }),
  } as object)) as NodeJS.ReadableStream & { destroy(): void };
  const stop = () => stream.destroy();
  if (opts.signal?.aborted) stop();
  opts.signal?.addEventListener('abort', stop, { once: true });
  return (async function* () {
    const oomSeen = new Set<string>();
    let buffered = '';
    try {
      for await (const chunk of stream as AsyncIterable<Buffer>) {
        const { events, rest } = splitEvents(buffered + Buffer.from(chunk).toString('utf8'));
        buffered = rest;
        for (const text of events) {
          let raw: RawEvent;
          try {
            raw = JSON.parse(text) as RawEvent;
          } catch {
            continue; // not an event: nothing to learn from it
          }
          const exit = exitOf(raw, oomSeen);
          if (exit) yield exit;
        }
      }
    } finally {
      opts.signal?.removeEventListener('abort', stop);
      stop();
    }
  })();
}
