import { dataplaneRefused } from '../../services/core/infra/metrics.js';
import { adminCommand } from './admin-socket.js';

// What the data plane's limits refused (docs/runner.md, "Data plane", "Limits"), from HAProxy's own
// counters (`show stat`): connections past the per-source cap are the viewers frontend's denied
// connections; requests past a copy's caps are the denied requests of the backend that answers
// each 429 (infra/dataplane/haproxy.cfg.tmpl). The runner adds what grew since its last look to
// dataplane_refused_total, which its /ops/metrics serves.

export type RefusalLimit = 'source_connections' | 'copy_connections' | 'copy_rate';

/** Which row and column of `show stat` counts each limit's refusals. */
const COUNTERS: Record<RefusalLimit, { proxy: string; row: string; column: string }> = {
  source_connections: { proxy: 'viewers', row: 'FRONTEND', column: 'dcon' },
  copy_connections: { proxy: 'refused_copy_connections', row: 'BACKEND', column: 'dreq' },
  copy_rate: { proxy: 'refused_copy_rate', row: 'BACKEND', column: 'dreq' },
};

/** HAProxy's counts since it started, per limit. */
export async function readRefusals(adminSocket: string): Promise<Record<RefusalLimit, number>> {
  const [header, ...rows] = (await adminCommand(adminSocket, 'show stat')).split('\n');
  const columns = (header ?? '').replace(/^# /, '').split(',');
  const cells = rows.map((line) => line.split(','));
  const out = {} as Record<RefusalLimit, number>;
  for (const [limit, where] of Object.entries(COUNTERS) as [RefusalLimit, (typeof COUNTERS)[RefusalLimit]][]) {
    const row = cells.find((c) => c[0] === where.proxy && c[1] === where.row);
    out[limit] = Number(row?.[columns.indexOf(where.column)] || 0);
  }
  return out;
}

/**
 * Adds to dataplane_refused_total what each count grew since the last call. A count lower than
 * the last is a restarted HAProxy counting again from nothing: all of it is new.
 */
export function refusalsCounter() {
  // Each limit's series from the start, at zero until something is refused.
  for (const limit of Object.keys(COUNTERS) as RefusalLimit[]) dataplaneRefused.inc({ limit }, 0);
  let last: Record<RefusalLimit, number> | null = null;
  return async (adminSocket: string): Promise<void> => {
    const now = await readRefusals(adminSocket);
    for (const limit of Object.keys(now) as RefusalLimit[]) {
      const before = last?.[limit] ?? 0;
      const grew = now[limit] >= before ? now[limit] - before : now[limit];
      if (grew > 0) dataplaneRefused.inc({ limit }, grew);
    }
    last = now;
  };
}
