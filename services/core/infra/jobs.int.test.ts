import { randomUUID } from 'node:crypto';
import { Worker } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testEnv } from '../../../test/support/services.js';
import { loadConfig } from './config.js';
import { BuildOutcome, runJob } from './jobs.js';
import { createQueues, createRedis, type Queues } from './queues.js';

// A job's outcome comes back through Redis from whatever took the job: runJob parses it with the
// outcome's schema, so a worker answering out of contract is refused by name, not passed on as T.

const config = loadConfig({
  ...testEnv(),
  LOG_LEVEL: 'silent',
  QUEUE_PREFIX: `t-${randomUUID().slice(0, 8)}`,
} as unknown as NodeJS.ProcessEnv);
const buildId = randomUUID();
let queues: Queues;
let worker: Worker;
const connection = createRedis(config.REDIS_URL);
beforeAll(() => {
  queues = createQueues(config);
  // A stand-in worker: a good outcome for one job, a malformed one for the rest.
  worker = new Worker('archive.unpack', async (job) => (job.id === buildId ? { ok: true, buildId } : { ok: 'yes', buildId: 42 }), {
    connection,
    prefix: config.QUEUE_PREFIX,
  });
});
afterAll(async () => {
  await worker.close();
  connection.disconnect();
  await queues.close();
});

describe('runJob', () => {
  it("returns an outcome that fits the job's schema", async () => {
    expect(await runJob(queues, 'archive.unpack', buildId, {}, 30_000, BuildOutcome)).toEqual({ ok: true, buildId });
  });

  it('refuses an outcome that does not fit, naming the queue and the job', async () => {
    const jobId = randomUUID();
    await expect(runJob(queues, 'archive.unpack', jobId, {}, 30_000, BuildOutcome)).rejects.toThrow(
      `archive.unpack job ${jobId} finished with an outcome that does not fit`,
    );
  });
});
