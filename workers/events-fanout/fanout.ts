import type { ProductEvent } from '@demo-rooms/contract';
import { claimUnhandled, markHandled } from '../../services/data/product-events.sql.js';
import type { WorkerDeps } from '../worker-deps.js';
import type { Consumer } from './consumer.js';
import { consumers as registered } from './consumers.js';

/** Events one consumer takes in one run: a run stays short, and the next one (5 s on) takes more. */
export const fanoutBatch = 500;

export interface FanoutOptions {
  /** Only these workspaces' events (tests drain only their own; the shared outbox is left alone). */
  workspaceIds?: string[];
  /** The consumers to run (the registry's unless a test names its own). */
  consumers?: readonly Consumer[];
  batch?: number;
}

/**
 * One fan-out run: for each consumer, up to `batch` events it has not handled, oldest first, are
 * claimed, handled and recorded handled in ONE transaction. A crash (or a consumer's throw) rolls
 * the record back with the consumer's own writes, so the events are handled again next run. One
 * consumer failing does not stop the others; the run then throws, naming it, after all ran.
 * Answers how many events each consumer handled.
 */
export async function fanOut(deps: WorkerDeps, opts: FanoutOptions = {}): Promise<Record<string, number>> {
  const handled: Record<string, number> = {};
  const failed: string[] = [];
  for (const consumer of opts.consumers ?? registered) {
    try {
      handled[consumer.name] = await deps.sql.begin(async (tx) => {
        const events: ProductEvent[] = await claimUnhandled(tx, consumer.name, opts.batch ?? fanoutBatch, opts.workspaceIds);
        if (!events.length) return 0;
        await consumer.handle({ ...deps, tx }, events);
        await markHandled(
          tx,
          consumer.name,
          events.map((e) => e.id),
        );
        return events.length;
      });
    } catch (err) {
      failed.push(consumer.name);
      deps.log.error({ consumer: consumer.name, err }, 'product events: a consumer failed; its events wait for the next run');
    }
  }
  if (failed.length) throw new Error(`product events: consumer(s) failed: ${failed.join(', ')}`);
  return handled;
}
