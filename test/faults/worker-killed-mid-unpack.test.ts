import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../services/core/infra/config.js';
import type { Sql } from '../../services/core/infra/db.js';
import { createQueues, type Queues } from '../../services/core/infra/queues.js';
import { createStorage } from '../../services/core/infra/storage.js';
import { siteArchive, staticManifest, uploadBytes } from './support/deploy.js';
import {
  builder,
  databaseOf,
  kill,
  startApi,
  startShortLockWorker,
  waitFor,
  type Api,
  type PlatformProcess,
} from './support/platform-processes.js';
import { startThrowawayServices, type ThrowawayServices } from './support/throwaway-services.js';

// Fault: the worker unpacking a build is killed (SIGKILL, no warning) halfway through. The api
// and the builder's request are untouched; a second worker retakes the job. Nothing accepted may
// be lost or doubled: the upload makes exactly one build, with every file, and the api answers
// the builder's waiting createBuild with it.

let services: ThrowawayServices;
let api: Api;
let sql: Sql;
let queues: Queues;
const processes: PlatformProcess[] = [];

beforeAll(async () => {
  services = await startThrowawayServices();
  api = await startApi(services);
  sql = databaseOf(services);
  queues = createQueues(loadConfig(services.env));
  // The test's own look at the queue; its connection errors while Redis is away are expected.
  queues.get('archive.unpack').on('error', () => {});
});
afterAll(async () => {
  for (const p of [api, ...processes]) p?.child.kill('SIGKILL');
  await queues?.close();
  await sql?.end({ timeout: 2 });
  await services?.stop();
});

describe('a worker killed during an unpack', () => {
  it('loses and doubles nothing: the retried job makes the one build, and the platform answers throughout', {
    timeout: 180_000,
  }, async () => {
    const { client, token } = await builder(sql, api.baseUrl);
    const project = await client.call('createProject', { body: { slug: `k-${crypto.randomUUID().slice(0, 12)}`, name: 'Killed' } });
    const { files, bytes } = await siteArchive(1500);
    const uploadId = await uploadBytes(api.baseUrl, token, client, project.id, bytes);

    const first = await startShortLockWorker(services);
    processes.push(first);
    const building = client.call('createBuild', { params: { projectId: project.id }, body: { uploadId, manifest: staticManifest() } });
    building.catch(() => {}); // awaited below; a rejection before then must not go unhandled

    // Strike once the job reports files landing in the store.
    const job = await waitFor(
      'the unpack to be halfway',
      async () => {
        const [active] = await queues.get('archive.unpack').getJobs(['active']);
        const landed = (active?.progress as { files?: number } | undefined)?.files ?? 0;
        return landed >= 200 && active;
      },
      60_000,
      25,
    );
    await kill(first);

    // Mid-way, nothing of the build is visible, and the api still answers.
    expect(await client.call('listBuilds', { params: { projectId: project.id } })).toEqual([]);
    expect((await fetch(`${api.baseUrl}/readyz`)).status).toBe(200);

    processes.push(await startShortLockWorker(services));
    const build = await building;
    expect(build.id).toBe(job.data.buildId);

    const stored = createStorage(loadConfig(services.env));
    expect(await stored.list(`builds/${build.id}/files/`)).toHaveLength(Object.keys(files).length);
    expect(await client.call('listBuilds', { params: { projectId: project.id } })).toHaveLength(1);
    const builds = await sql`select id from builds where upload_id = ${uploadId}`;
    expect(builds).toHaveLength(1);
    const [upload] = await sql<{ state: string }[]>`select state from uploads where id = ${uploadId}`;
    expect(upload.state).toBe('used');
    // The job finished once, as completed: the kill cost it neither its result nor a failure.
    const finished = await queues.get('archive.unpack').getJob(job.id!);
    expect(await finished?.getState()).toBe('completed');
  });
});
