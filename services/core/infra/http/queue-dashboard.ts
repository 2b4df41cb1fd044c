import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { FastifyAdapter } from '@bull-board/fastify';
import type { FastifyInstance } from 'fastify';
import { queueNames, type Queues } from '../queues.js';

/**
 * bull-board for every queue of the job catalog, registered at `prefix` inside `scope` (whose
 * hooks, the operator check among them, apply to its pages, its API and its static files);
 * `basePath` is the same place as browsers see it, for the page's links.
 * Operators may retry, promote and clean jobs from it: every job is idempotent, so a retried one
 * cannot make a build twice.
 */
export async function registerQueueDashboard(scope: FastifyInstance, queues: Queues, at: { prefix: string; basePath: string }) {
  const serverAdapter = new FastifyAdapter();
  serverAdapter.setBasePath(at.basePath);
  createBullBoard({
    queues: queueNames.map((name) => new BullMQAdapter(queues.get(name))),
    serverAdapter,
    options: { uiConfig: { boardTitle: 'Demo rooms queues' } },
  });
  await scope.register(serverAdapter.registerPlugin(), { prefix: at.prefix });
}
