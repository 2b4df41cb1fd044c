import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../services/core/infra/config.js';
import type { Sql } from '../../services/core/infra/db.js';
import { createQueues, type Queues } from '../../services/core/infra/queues.js';
import { createStorage } from '../../services/core/infra/storage.js';
import { siteArchive, staticManifest, uploadBytes } from './support/deploy.js';
import { builder, databaseOf, startApi, startWorkers, waitFor, type Api, type Workers } from './support/platform-processes.js';
import { startThrowawayServices, type ThrowawayServices } from './support/throwaway-services.js';

// Fault: Redis (the queues) stops and comes back while a deploy is being unpacked. The api and
// the workers keep running and reconnect; the builder's createBuild is still waiting on the job.
// Nothing accepted may be lost or doubled (the deploy makes exactly one build with every file;
// a link made while Redis is away is kept), and api and workers are ready again within seconds.

let services: ThrowawayServices;
let api: Api;
let workers: Workers;
let sql: Sql;
let queues: Queues;

beforeAll(async () => {
  services = await startThrowawayServices();
  [api, workers] = await Promise.all([startApi(services), startWorkers(services)]);
  sql = databaseOf(services);
  queues = createQueues(loadConfig(services.env));
  // The test's own look at the queue; its connection errors while Redis is away are expected.
  for (const name of ['archive.unpack', 'leftovers.sweep'] as const) queues.get(name).on('error', () => {});
});
afterAll(async () => {
  for (const p of [api, workers]) p?.child.kill('SIGKILL');
  await queues?.close();
  await sql?.end({ timeout: 2 });
  await services?.stop();
});

const ready = async (baseUrl: string) => (await fetch(`${baseUrl}/readyz`, { signal: AbortSignal.timeout(3_000) })).status === 200;

describe('Redis restarted during a deploy', () => {
  it('keeps the deploy (one build, every file) and every link, and api and workers are ready again', { timeout: 180_000 }, async () => {
    const { client, token } = await builder(sql, api.baseUrl);
    const project = await client.call('createProject', { body: { slug: `r-${crypto.randomUUID().slice(0, 12)}`, name: 'Redis' } });
    const { files, bytes } = await siteArchive(2000);
    const uploadId = await uploadBytes(api.baseUrl, token, client, project.id, bytes);

    const building = client.call('createBuild', { params: { projectId: project.id }, body: { uploadId, manifest: staticManifest() } });
    building.catch(() => {});
    await waitFor(
      'the unpack to be under way',
      async () => {
        const [active] = await queues.get('archive.unpack').getJobs(['active']);
        return ((active?.progress as { files?: number } | undefined)?.files ?? 0) > 0;
      },
      60_000,
      25,
    );

    // Redis goes away for a second. Links live in Postgres alone: one made meanwhile is kept.
    const restarting = services.restartRedis({ downMs: 1_000 });
    const link = await client.call('createLink', { params: { projectId: project.id }, body: { viewerName: 'During the outage' } });
    await restarting;

    const build = await building;
    const stored = createStorage(loadConfig(services.env));
    expect(await stored.list(`builds/${build.id}/files/`)).toHaveLength(Object.keys(files).length);
    expect(await sql`select id from builds where upload_id = ${uploadId}`).toHaveLength(1);
    const [upload] = await sql<{ state: string }[]>`select state from uploads where id = ${uploadId}`;
    expect(upload.state).toBe('used');
    expect((await client.call('listLinks', { params: { projectId: project.id } })).map((l) => l.id)).toEqual([link.link.id]);

    // Ready again: both processes reach Redis, Postgres and the store.
    await waitFor('the api to be ready again', () => ready(api.baseUrl));
    await waitFor('the workers to be ready again', () => ready(workers.baseUrl));

    // The hourly sweep is still scheduled (Redis keeps it in its append-only file), and has run.
    expect(await queues.get('leftovers.sweep').getJobScheduler('hourly-sweep')).toMatchObject({ every: 60 * 60 * 1000 });
    await waitFor('a sweep to have run', async () => (await queues.get('leftovers.sweep').getJobCounts('completed')).completed >= 1);

    // And the queues work again end to end: a second deploy goes through.
    const again = await siteArchive(3);
    const secondUpload = await uploadBytes(api.baseUrl, token, client, project.id, again.bytes);
    const second = await client.call('createBuild', {
      params: { projectId: project.id },
      body: { uploadId: secondUpload, manifest: staticManifest() },
    });
    expect(second.id).not.toBe(build.id);
    expect(await client.call('listBuilds', { params: { projectId: project.id } })).toHaveLength(2);
    // The unpack jobs are in Redis once each, both completed: the restart lost no job.
    expect(await queues.get('archive.unpack').getJobCounts('completed', 'failed', 'active', 'wait')).toEqual({
      completed: 2,
      failed: 0,
      active: 0,
      wait: 0,
    });
  });
});
