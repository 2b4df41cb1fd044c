import { describe, expect, it } from 'vitest';
import { queueNames, type QueueName } from '../services/core/infra/queues.js';
import { buildWorkers } from './app.js';
import { processorsFor } from './processors.js';
import type { WorkerDeps } from './worker-deps.js';

// The start-up check of the job catalog: a queue nobody takes (as `listing-scan` was) stops the
// workers before they start, rather than leaving its jobs waiting forever.

describe('the workers start-up check', () => {
  it('takes the whole job catalog, each queue with its processor', () => {
    expect(processorsFor(queueNames).map(([queue, process]) => [queue, typeof process])).toEqual(queueNames.map((q) => [q, 'function']));
  });

  it('refuses a catalog with a queue that has no processor, naming it', () => {
    expect(() => processorsFor([...queueNames, 'listing.scan'])).toThrow('no processor for queue(s): listing.scan');
  });

  it('buildWorkers refuses to start on such a catalog, before it connects anywhere', () => {
    const catalog = [...queueNames, 'listing.scan'] as QueueName[];
    expect(() => buildWorkers({} as WorkerDeps, { queues: catalog })).toThrow('no processor for queue(s): listing.scan');
  });
});
