import type { WorkerDeps } from '../worker-deps.js';
import { fanOut } from './fanout.js';

/** The schedule the workers register: every 5 s, so an alert follows its event within seconds. */
export const fanoutSchedule = { id: 'events-fanout', every: 5_000 } as const;

/** events.fanout: hands the product events to each consumer (fanout.ts). Idempotent by the handled table. */
export async function eventsFanout(deps: WorkerDeps) {
  const handled = await fanOut(deps);
  if (Object.values(handled).some((n) => n > 0)) deps.log.info({ handled }, 'product events fanned out');
  return { handled };
}
