import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../services/core/infra/config.js';
import type { Sql } from '../../services/core/infra/db.js';
import { createQueues, type Queues } from '../../services/core/infra/queues.js';
import { createStorage } from '../../services/core/infra/storage.js';
import { siteArchive, staticManifest, uploadBytes } from './support/deploy.js';
import { builder, databaseOf, startApi, startWorkers, waitFor, type PlatformProcess } from './support/platform-processes.js';
import { startThrowawayServices, type ThrowawayServices } from './support/throwaway-services.js';

// SIGTERM, as an orchestrator sends it on every deploy and scale-down: the api stops taking
// requests and finishes those in flight (an upload included) within its deadline; the workers
// finish the jobs in hand, or hand them back when the deadline comes first.

let services: ThrowawayServices;
let sql: Sql;
let queues: Queues;
const processes: PlatformProcess[] = [];

beforeAll(async () => {
  services = await startThrowawayServices();
  sql = databaseOf(services);
  queues = createQueues(loadConfig(services.env));
  queues.get('archive.unpack').on('error', () => {});
});
afterAll(async () => {
  for (const p of processes) p.child.kill('SIGKILL');
  await queues?.close();
  await sql?.end({ timeout: 2 });
  await services?.stop();
});

const track = <T extends PlatformProcess>(p: T) => (processes.push(p), p);

/** Whether a new request is turned away: no connection, or 503 on a kept-alive one. */
async function refusesNewRequests(baseUrl: string): Promise<boolean> {
  try {
    return (await fetch(`${baseUrl}/healthz`, { signal: AbortSignal.timeout(2_000) })).status === 503;
  } catch {
    return true;
  }
}

/** A PUT whose body the test sends in two parts, so it can act while the request is in flight. */
function slowPut(baseUrl: string, path: string, token: string, bytes: Buffer) {
  const half = Math.floor(bytes.length / 2);
  let answer: (r: { status: number } | { error: Error }) => void = () => {};
  const done = new Promise<{ status: number } | { error: Error }>((resolve) => (answer = resolve));
  const url = new URL(baseUrl);
  const req = request(
    {
      host: url.hostname,
      port: url.port,
      path,
      method: 'PUT',
      headers: { authorization: `Bearer ${token}`, 'content-length': String(bytes.length), 'content-type': 'application/gzip' },
    },
    (res) => {
      res.resume();
      res.on('end', () => answer({ status: res.statusCode ?? 0 }));
    },
  );
  req.on('error', (error) => answer({ error }));
  req.write(bytes.subarray(0, half));
  return { done, finish: () => req.end(bytes.subarray(half)) };
}

async function newUpload(baseUrl: string, bytes: Buffer) {
  const { client, token } = await builder(sql, baseUrl);
  const project = await client.call('createProject', { body: { slug: `g-${crypto.randomUUID().slice(0, 12)}`, name: 'Graceful' } });
  const { uploadId, putUrl } = await client.call('startUpload', {
    params: { projectId: project.id },
    body: { kind: 'static', sizeBytes: bytes.length },
  });
  return { client, token, project, uploadId, putUrl };
}

const uploadState = async (id: string) => (await sql<{ state: string }[]>`select state from uploads where id = ${id}`)[0]?.state;

describe('the api on SIGTERM', () => {
  it('stops taking requests, finishes an upload in flight, then exits 0', { timeout: 180_000 }, async () => {
    const api = track(await startApi(services));
    const { bytes } = await siteArchive(200);
    const { token, uploadId, putUrl } = await newUpload(api.baseUrl, bytes);
    const put = slowPut(api.baseUrl, putUrl, token, bytes);
    await waitFor('the PUT to hold its upload', async () => (await uploadState(uploadId)) === 'receiving');

    api.child.kill('SIGTERM');
    await waitFor('the api to turn new requests away', () => refusesNewRequests(api.baseUrl));
    expect(await uploadState(uploadId)).toBe('receiving');

    put.finish();
    expect(await put.done).toEqual({ status: 204 });
    expect(await api.exited).toEqual({ code: 0, signal: null });
    expect(await uploadState(uploadId)).toBe('received');
    const stored = await createStorage(loadConfig(services.env)).head(`uploads/${uploadId}`);
    expect(stored?.size).toBe(bytes.length);
  });

  it('cuts an upload still unfinished at the deadline, which can then be sent again', { timeout: 180_000 }, async () => {
    const api = track(await startApi(services, { SHUTDOWN_SECONDS: '2' }));
    const { bytes } = await siteArchive(200);
    const { token, uploadId, putUrl } = await newUpload(api.baseUrl, bytes);
    const put = slowPut(api.baseUrl, putUrl, token, bytes);
    await waitFor('the PUT to hold its upload', async () => (await uploadState(uploadId)) === 'receiving');

    api.child.kill('SIGTERM'); // and the rest of the body never comes
    expect('error' in (await put.done)).toBe(true);
    expect(await api.exited).toEqual({ code: 0, signal: null });
    // Given back, not lost: the builder sends it again to the next api.
    expect(await uploadState(uploadId)).toBe('declared');
    const next = track(await startApi(services));
    const res = await fetch(next.baseUrl + putUrl, {
      method: 'PUT',
      headers: { authorization: `Bearer ${token}` },
      body: new Uint8Array(bytes),
    });
    expect(res.status).toBe(204);
    expect(await uploadState(uploadId)).toBe('received');
    const stored = await createStorage(loadConfig(services.env)).head(`uploads/${uploadId}`);
    expect(stored?.size).toBe(bytes.length);
  });
});

/** A static deploy of `fileCount` files whose unpack has begun; createBuild still waiting. */
async function deployUnderway(baseUrl: string, fileCount: number) {
  const { files, bytes } = await siteArchive(fileCount);
  const person = await builder(sql, baseUrl);
  const p = await person.client.call('createProject', { body: { slug: `w-${crypto.randomUUID().slice(0, 12)}`, name: 'Workers' } });
  const uploadId = await uploadBytes(baseUrl, person.token, person.client, p.id, bytes);
  const building = person.client.call('createBuild', { params: { projectId: p.id }, body: { uploadId, manifest: staticManifest() } });
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
  return { files, uploadId, building, person, p };
}

describe('the workers on SIGTERM', () => {
  it('finish the job in hand, then exit 0: the build is made once', { timeout: 180_000 }, async () => {
    const api = track(await startApi(services));
    const workers = track(await startWorkers(services));
    const { files, uploadId, building } = await deployUnderway(api.baseUrl, 1500);

    workers.child.kill('SIGTERM');
    expect(await workers.exited).toEqual({ code: 0, signal: null });
    const build = await building;
    expect(await createStorage(loadConfig(services.env)).list(`builds/${build.id}/files/`)).toHaveLength(Object.keys(files).length);
    expect(await sql`select id from builds where upload_id = ${uploadId}`).toHaveLength(1);
  });

  it('hand back a job still running at the deadline: another worker makes the build, once', { timeout: 360_000 }, async () => {
    const api = track(await startApi(services));
    const first = track(await startWorkers(services, { SHUTDOWN_SECONDS: '1' }));
    const { files, uploadId, building, person, p } = await deployUnderway(api.baseUrl, 3000);

    first.child.kill('SIGTERM');
    await first.exited;
    expect(await person.client.call('listBuilds', { params: { projectId: p.id } })).toEqual([]);

    // The next worker retakes the job once its lock has lapsed (stalled-job recovery).
    track(await startWorkers(services));
    const build = await building;
    expect(await createStorage(loadConfig(services.env)).list(`builds/${build.id}/files/`)).toHaveLength(Object.keys(files).length);
    expect(await sql`select id from builds where upload_id = ${uploadId}`).toHaveLength(1);
    expect(await uploadState(uploadId)).toBe('used');
  });
});
