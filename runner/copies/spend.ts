import type { Sql } from '../../services/core/infra/db.js';
import { containerUsage } from '../../services/data/container-usage.sql.js';

// The platform's monthly spend limit on demo containers: the month's container-hours (all
// workspaces, from the usage events) at RUNNER_COPY_HOUR_USD. Over it, no new copy starts and the
// viewer meets "live demo paused for the platform"; copies already running keep going. The figure
// is read at most every 30 s: the limit is a budget guard, not a meter.

export function createSpendCheck(sql: Sql, limitUsd: number | null, hourUsd: number, everyMs = 30_000) {
  let checkedAt = 0;
  let over = false;
  return async function overSpend(): Promise<boolean> {
    if (limitUsd === null) return false;
    if (Date.now() - checkedAt < everyMs) return over;
    const usage = await containerUsage(sql, null);
    over = usage.containerHours * hourUsd >= limitUsd;
    checkedAt = Date.now();
    return over;
  };
}
