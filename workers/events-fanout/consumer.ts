import type { ProductEvent } from '@demo-rooms/contract';
import type { Tx } from '../../services/core/infra/db.js';
import type { WorkerDeps } from '../worker-deps.js';

/**
 * What a consumer handles events with: the worker's own, and `tx`, the transaction that claimed
 * the events and records them handled. What a consumer writes through `tx` commits with that
 * record, or not at all; what it does outside (a mail, an HTTP call) may be done again after a
 * crash, so it must be safe to repeat (at least once).
 */
export type ConsumerDeps = WorkerDeps & { tx: Tx };

export interface Consumer {
  /** Stored in product_event_handled.consumer (at most 40 characters; never renamed: it is the consumer's memory). */
  name: string;
  handle(deps: ConsumerDeps, events: ProductEvent[]): Promise<void>;
}
