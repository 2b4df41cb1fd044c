import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { startPlatform, type Platform } from '../../../test/support/platform.js';
import { tgz } from '../../../test/support/archives.js';
import { refusal, uniqueSlug } from '../../../test/support/refusal.js';
import { waitFor } from '../../../test/support/wait-for.js';

// The deploys limit under a race, and a createBuild whose wait runs out (BUILD_WAIT_MS=1 here, so
// every wait does): the deploy is given up whole, and the 503 says nothing of why.

let platform: Platform;
let hasty: Platform;
const logged: string[] = [];
beforeAll(async () => {
  platform = await startPlatform({ workers: true });
  const logTo = new Writable({
    write(chunk, _enc, done) {
      logged.push(String(chunk));
      done();
    },
  });
  // No workers at first: the wait surely runs out before any job is taken (no timing involved).
  hasty = await startPlatform({ env: { BUILD_WAIT_MS: '1' }, logTo });
});
afterAll(async () => {
  await hasty?.close();
  await platform?.close();
});

const site = { 'index.html': '<!doctype html><title>Home</title><h1>Hello</h1>' };
const manifest = {
  kind: 'static' as const,
  name: 'Demo',
  output: 'dist',
  apps: [{ id: 'web', name: 'Web', path: '/', device: 'laptop' as const }],
};

async function newProject(p: Platform) {
  const person = await p.person();
  const project = await person.client.call('createProject', { body: { slug: uniqueSlug('r'), name: 'Demo' } });
  const upload = async () => {
    const bytes = await tgz(site);
    const { uploadId, putUrl } = await person.client.call('startUpload', {
      params: { projectId: project.id },
      body: { kind: 'static', sizeBytes: bytes.length },
    });
    expect((await p.fetch(putUrl, { method: 'PUT', token: person.token, body: bytes })).status).toBe(204);
    return uploadId;
  };
  return { ...person, project, upload };
}

describe('deploy reservations', () => {
  it("lets exactly the plan's deploys through when createBuilds race (free: 20 a day)", async () => {
    const { client, email, project, upload } = await newProject(platform);
    // Eighteen earlier deploys today, written directly: two are left.
    await platform.deps.sql`
      with ws as (select workspace_id from personal_workspaces pw join people p on p.id = pw.person_id where p.email = ${email}),
      ups as (insert into uploads (workspace_id, project_id, kind, size_bytes, state)
              select (select workspace_id from ws), ${project.id}, 'static', 1, 'used' from generate_series(1, 18) returning id, workspace_id)
      insert into builds (id, workspace_id, project_id, upload_id, kind, manifest, size_bytes)
      select gen_random_uuid(), workspace_id, ${project.id}, id, 'static', '{}'::jsonb, 1 from ups`;
    const uploads = await Promise.all(Array.from({ length: 6 }, () => upload()));
    const results = await Promise.allSettled(
      uploads.map((uploadId) => client.call('createBuild', { params: { projectId: project.id }, body: { uploadId, manifest } })),
    );
    const made = results.filter((r) => r.status === 'fulfilled');
    const refused = await Promise.all(
      results.filter((r) => r.status === 'rejected').map((r) => refusal(Promise.reject((r as PromiseRejectedResult).reason))),
    );
    expect(made).toHaveLength(2);
    expect(refused).toEqual(
      Array(4).fill({ status: 402, body: { error: expect.any(String), reason: 'limit', limit: 'deploys', plan: 'free', upgrade: 'solo' } }),
    );
    expect(await platform.deps.sql`select 1 from builds where project_id = ${project.id}`).toHaveLength(20);
  });

  it('a createBuild whose wait runs out answers the bare 503, gives the deploy up whole, and the job makes nothing', async () => {
    const { client, token, project, upload } = await newProject(hasty);
    const uploadId = await upload();
    const res = await hasty.fetch(`/api/projects/${project.id}/builds`, { method: 'POST', token, json: { uploadId, manifest } });
    const r = { status: res.status, body: res.body };
    // The spec's body only: the timeout's text (job ids, queue names) goes to the log.
    expect(r).toEqual({ status: 503, body: { error: 'unavailable', reason: 'unavailable' } });
    expect(logged.join('')).toMatch(/timed out/);

    // Now a worker takes the job and runs it to its end: it must not make the build given up.
    const { buildWorkers } = await import('../../../workers/app.js');
    const workers = buildWorkers(
      { config: hasty.deps.config, sql: hasty.deps.sql, storage: hasty.deps.storage, log: hasty.deps.log },
      { queues: ['archive.unpack'] },
    );
    onTestFinished(() => workers.close());
    const unpackQueue = hasty.deps.queues.get('archive.unpack');
    const job = await waitFor('the unpack job to end', async () => {
      const ended = await unpackQueue.getJobs(['completed', 'failed']);
      return ended.find((j) => j.data.uploadId === uploadId);
    });
    expect(job.returnvalue).toMatchObject({ ok: false });
    expect(await hasty.deps.sql`select 1 from builds where upload_id = ${uploadId}`).toHaveLength(0);
    expect(await hasty.deps.storage.list(`builds/${job.data.buildId}/`)).toEqual([]);
    const [row] = await hasty.deps.sql<{ state: string }[]>`select state from uploads where id = ${uploadId}`;
    expect(row.state).toBe('received');
    // The attempt is kept, given up: a failed deploy, no longer one of the plan's deploys.
    expect(
      await hasty.deps.sql`select made, given_up_at is not null as given_up from deploy_reservations where upload_id = ${uploadId}`,
    ).toEqual([{ made: false, givenUp: true }]);
    expect(await client.call('listBuilds', { params: { projectId: project.id } })).toEqual([]);
  });
});
