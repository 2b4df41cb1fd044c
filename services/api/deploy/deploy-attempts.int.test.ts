import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlatform, type Platform } from '../../../test/support/platform.js';
import { tgz } from '../../../test/support/archives.js';
import { refusal, uniqueSlug } from '../../../test/support/refusal.js';

// Security review 3, M6: a createBuild that makes nothing still costs (it unpacked or read the
// upload), an upload the archive check refused can never be unpacked again, and a workspace's
// unbuilt uploads are bounded in bytes (docs/decisions/projects-and-deploys.md).

let platform: Platform;
beforeAll(async () => {
  platform = await startPlatform({ workers: true });
});
afterAll(async () => {
  await platform.close();
});

const site = { 'index.html': '<!doctype html><title>Home</title><h1>Hello</h1>' };
const manifest = (extra: Record<string, unknown> = {}) => ({
  kind: 'static' as const,
  name: 'Demo',
  output: 'dist',
  apps: [{ id: 'web', name: 'Web', path: '/', device: 'laptop' as const }],
  ...extra,
});
const GB = 1024 * 1024 * 1024;

async function newProject() {
  const person = await platform.person();
  const project = await person.client.call('createProject', { body: { slug: uniqueSlug('a'), name: 'Demo' } });
  const [ws] = await platform.deps.sql<{ workspaceId: string }[]>`select workspace_id from projects where id = ${project.id}`;
  const upload = async (files: Record<string, string>) => {
    const bytes = await tgz(files);
    const { uploadId, putUrl } = await person.client.call('startUpload', {
      params: { projectId: project.id },
      body: { kind: 'static', sizeBytes: bytes.length },
    });
    expect((await platform.fetch(putUrl, { method: 'PUT', token: person.token, body: bytes })).status).toBe(204);
    return uploadId;
  };
  const build = (uploadId: string, m = manifest()) =>
    person.client.call('createBuild', { params: { projectId: project.id }, body: { uploadId, manifest: m } });
  return { ...person, project, workspaceId: ws.workspaceId, upload, build };
}

const unpackJobsOf = async (uploadId: string) =>
  (await platform.deps.queues.get('archive.unpack').getJobs(['completed', 'failed', 'active', 'waiting', 'delayed'])).filter(
    (j) => j.data.uploadId === uploadId,
  ).length;

describe('deploy attempts', () => {
  it('an upload refused by the archive check is refused for good: later createBuilds answer the same 422 and unpack nothing', async () => {
    const { upload, build } = await newProject();
    const uploadId = await upload({ ...site, '../escape.html': 'x' });
    const first = await refusal(build(uploadId));
    expect(first).toMatchObject({
      status: 422,
      body: { error: 'refused: archive', reason: 'archive', detail: expect.stringContaining('escape.html') },
    });

    const [row] = await platform.deps.sql<{ state: string }[]>`select state from uploads where id = ${uploadId}`;
    expect(row.state).toBe('refused');
    expect(await platform.deps.storage.head(`uploads/${uploadId}`)).toBeNull();

    for (let i = 0; i < 3; i++) expect(await refusal(build(uploadId))).toEqual(first);
    expect(await unpackJobsOf(uploadId)).toBe(1);
    // The one attempt that unpacked is kept, given up: it counts as a failed deploy, not a deploy.
    const attempts = await platform.deps.sql<
      { givenUp: boolean }[]
    >`select given_up_at is not null as given_up from deploy_reservations where upload_id = ${uploadId}`;
    expect(attempts).toEqual([{ givenUp: true }]);
  });

  it("failed attempts count: past the plan's deploys of them in 24 hours, createBuild is 402 deploys, and a manifest at fault keeps its upload", async () => {
    const { upload, build, workspaceId, project } = await newProject();
    // Nineteen failed attempts today, written directly (each would unpack an archive): one is left.
    await platform.deps.sql`
      insert into deploy_reservations (build_id, workspace_id, upload_id, given_up_at)
      select gen_random_uuid(), ${workspaceId}, null, now() from generate_series(1, 19)`;
    const uploadId = await upload(site);
    // The twentieth: a story step whose page is not among the files (found only once unpacked).
    const badStory = manifest({ story: [{ id: 'one', title: 'Gone', say: 'Missing', app: 'web', path: '/missing.html' }] });
    expect(await refusal(build(uploadId, badStory))).toMatchObject({ status: 400, body: { error: 'invalid' } });
    const [row] = await platform.deps.sql<{ state: string }[]>`select state from uploads where id = ${uploadId}`;
    expect(row.state).toBe('received');

    // The same upload again, even with a good manifest: refused before anything is unpacked.
    expect(await refusal(build(uploadId))).toEqual({
      status: 402,
      body: {
        error: 'Your plan allows no more failed deploys in 24 hours.',
        reason: 'limit',
        limit: 'deploys',
        plan: 'free',
        upgrade: 'solo',
      },
    });
    expect(await unpackJobsOf(uploadId)).toBe(1);
    expect(await platform.deps.sql`select 1 from builds where project_id = ${project.id}`).toHaveLength(0);
  });

  it("a failed attempt does not take one of the plan's deploys", async () => {
    const { upload, build, workspaceId, project } = await newProject();
    // Nineteen deploys and five failed attempts today: one deploy is left, and it is made.
    await platform.deps.sql`
      insert into deploy_reservations (build_id, workspace_id, upload_id, made, given_up_at)
      select gen_random_uuid(), ${workspaceId}, null, i <= 19, case when i > 19 then now() end from generate_series(1, 24) i`;
    expect((await build(await upload(site))).live).toBe(false);
    expect(await refusal(build(await upload(site)))).toMatchObject({
      status: 402,
      body: { limit: 'deploys', error: 'Your plan allows no more deploys in 24 hours.' },
    });
    expect(await platform.deps.sql`select 1 from builds where project_id = ${project.id}`).toHaveLength(1);
  });
});

describe('the upload quota', () => {
  it("refuses startUpload with 422 size once the workspace's unbuilt uploads would pass 2 GB, racing calls included", async () => {
    const { client, project, upload, build } = await newProject();
    const start = (sizeBytes: number) =>
      client.call('startUpload', { params: { projectId: project.id }, body: { kind: 'static', sizeBytes } });
    // A small upload received and built: spent, it holds nothing.
    await build(await upload(site));
    const half = GB / 2;
    const raced = await Promise.allSettled(Array.from({ length: 6 }, () => start(half)));
    expect(raced.filter((r) => r.status === 'fulfilled')).toHaveLength(4);
    const over = await refusal(start(1));
    expect(over).toEqual({ status: 422, body: { error: 'refused: size', reason: 'size', detail: expect.stringContaining('2 GB') } });

    // Another workspace is not held by this one's uploads.
    const other = await newProject();
    expect(
      (await other.client.call('startUpload', { params: { projectId: other.project.id }, body: { kind: 'static', sizeBytes: half } }))
        .putUrl,
    ).toMatch(/^\/api\/uploads\//);
  });
});
