import { adminCommand } from './admin-socket.js';

// Which copies viewers use on the direct path (docs/runner.md, "Data plane"): HAProxy counts, per
// copy origin key, the requests it passed and the connections open now (a WebSocket counts while
// open) in its `activity` stick table. The runner reads the table every few seconds and tells its
// idle culler, as the room's proxy tells it of the requests and sockets it carries.

export interface KeyActivity {
  /** Requests passed to the copy since the entry was made. */
  requests: number;
  /** Connections open to the copy now (WebSockets and keep-alive HTTP). */
  open: number;
}

/** The table now: copy origin key (`v<12 hex>`) → its counters. */
export async function readActivity(adminSocket: string): Promise<Map<string, KeyActivity>> {
  const out = new Map<string, KeyActivity>();
  for (const line of (await adminCommand(adminSocket, 'show table activity')).split('\n')) {
    const key = /\bkey=(v[0-9a-f]{12})\b/.exec(line)?.[1];
    if (!key) continue;
    out.set(key, {
      requests: Number(/\bhttp_req_cnt=(\d+)/.exec(line)?.[1] ?? 0),
      open: Number(/\bconn_cur=(\d+)/.exec(line)?.[1] ?? 0),
    });
  }
  return out;
}

/**
 * The keys used since the last call: more requests than before, or a connection open now. Keeps
 * the last counts itself; a key the table dropped (an hour unused) starts again from nothing.
 */
export function activitySince() {
  let last = new Map<string, KeyActivity>();
  return async (adminSocket: string): Promise<string[]> => {
    const now = await readActivity(adminSocket);
    const used = [...now].filter(([key, a]) => a.open > 0 || a.requests > (last.get(key)?.requests ?? 0)).map(([key]) => key);
    last = now;
    return used;
  };
}
