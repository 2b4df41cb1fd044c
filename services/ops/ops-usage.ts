import { reconcileUsageAt, type UsageDifference, type UsageReconciliation } from '@demo-rooms/contract/runner';
import type { Sql } from '../core/infra/db.js';
import { hostsSeenWithin } from '../data/runner-hosts.sql.js';

// `npm run ops -- usage reconcile [--since <ISO date>]` (issue 46, item 1): each live runner host
// compares its copies' billed seconds with its engine's own record since then (the engine is the
// host's, so the host does it: runner/loops/usage-reconcile.ts), ends and bills what no record
// owned, voids what the engine never ran; this prints each difference and a summary.

/** Hosts that beat within this many seconds are asked (the lost-host sweep's default). */
const LIVE_S = 60;

export interface UsageHosts {
  appSecret: string;
  /** RUNNER_URL: one runner named; else every host that beat lately, else the runner on this machine. */
  runnerUrl?: string;
  fallbackUrl: string;
}

/** The hosts asked: the named runner, else the live hosts of every fleet, else this machine's. */
export async function usageHosts(sql: Sql, o: UsageHosts): Promise<{ id: string; apiUrl: string }[]> {
  if (o.runnerUrl) return [{ id: o.runnerUrl, apiUrl: o.runnerUrl }];
  const hosts = await hostsSeenWithin(sql, LIVE_S);
  return hosts.length ? hosts : [{ id: o.fallbackUrl, apiUrl: o.fallbackUrl }];
}

const s = (seconds: number) => `${seconds.toFixed(3)} s`;

const WHAT: Record<UsageDifference['kind'], (d: UsageDifference) => string> = {
  differs: (d) => `differs by ${(d.billedSeconds - d.engineSeconds).toFixed(3)} s: look at its copy_events and the runner's log`,
  unowned: (d) => (d.fixed ? "ended; the engine's seconds billed to its workspace as unowned" : 'not ended yet: the next pass'),
  'never-ran': (d) =>
    d.fixed ? 'voided: a correction (in the next statement when its month has closed)' : 'not voided yet: the next pass',
};

/** The lines one host's reconciliation prints. */
export function reconciliationLines(host: string, r: UsageReconciliation): string[] {
  return [
    `${host} (${r.runnerId}) ${r.since} .. ${r.until}: ${r.copies} copies, ${r.within} within 1 s of the engine, ${r.differences.length} differences, ${r.unjudged} without an engine record; billed ${s(r.billedSeconds)}, engine ${s(r.engineSeconds)}${r.fixesLeft ? '; more fixes left for the next pass' : ''}`,
    ...r.differences.map(
      (d) =>
        `  ${d.kind.padEnd(9)}  copy ${d.copyId}  workspace ${d.workspaceId ?? '-'}  billed ${s(d.billedSeconds)}  engine ${s(d.engineSeconds)}  ${WHAT[d.kind](d)}`,
    ),
  ];
}

/** Asks each host in turn; a host that fails is reported and the others are still asked. */
export async function reconcileUsageOnHosts(
  hosts: { id: string; apiUrl: string }[],
  appSecret: string,
  since: Date,
): Promise<{ lines: string[]; failed: number }> {
  const lines: string[] = [];
  const total = { copies: 0, within: 0, differences: 0, billed: 0, engine: 0, unowned: 0, voided: 0 };
  let failed = 0;
  for (const h of hosts) {
    try {
      const r = await reconcileUsageAt({ baseUrl: h.apiUrl, appSecret }, since);
      lines.push(...reconciliationLines(h.id, r));
      total.copies += r.copies;
      total.within += r.within;
      total.differences += r.differences.length;
      total.billed += r.billedSeconds;
      total.engine += r.engineSeconds;
      total.unowned += r.differences.filter((d) => d.kind === 'unowned' && d.fixed).length;
      total.voided += r.differences.filter((d) => d.kind === 'never-ran' && d.fixed).length;
    } catch (err) {
      failed++;
      lines.push(`${h.id}: not reconciled: ${(err as Error).message}`);
    }
  }
  lines.push(
    `summary: ${hosts.length - failed} of ${hosts.length} hosts, ${total.copies} copies, ${total.within} within 1 s, ${total.differences} differences (${total.unowned} unowned billed, ${total.voided} voided); billed ${s(total.billed)}, engine ${s(total.engine)}`,
  );
  return { lines, failed };
}
