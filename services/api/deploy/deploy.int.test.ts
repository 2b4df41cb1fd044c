import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@demo-rooms/contract';
import { startPlatform, type Platform } from '../../../test/support/platform.js';
import { tgz } from '../../../test/support/archives.js';
import { refusal, uniqueSlug } from '../../../test/support/refusal.js';

let platform: Platform;
beforeAll(async () => {
  platform = await startPlatform({ workers: true });
});
afterAll(async () => {
  await platform.close();
});

const slug = () => uniqueSlug('d');
const site = {
  'index.html': '<!doctype html><title>Home</title><h1>Hello</h1>',
  'app.js': 'console.log("hi")',
  'docs/index.html': '<h1>Docs</h1>',
  'img/logo.svg': '<svg xmlns="http://www.w3.org/2000/svg"/>',
};
const manifest = (extra: Record<string, unknown> = {}) => ({
  kind: 'static' as const,
  name: 'Demo',
  output: 'dist',
  apps: [{ id: 'web', name: 'Web', path: '/', device: 'laptop' as const }],
  ...extra,
});

async function upload(token: string, client: Client, projectId: string, bytes: Buffer, kind: 'static' | 'container' = 'static') {
  const { uploadId, putUrl } = await client.call('startUpload', { params: { projectId }, body: { kind, sizeBytes: bytes.length } });
  const put = await platform.fetch(putUrl, { method: 'PUT', token, body: bytes, headers: { 'content-type': 'application/gzip' } });
  expect(put.status).toBe(204);
  expect(put.body).toBe('');
  return uploadId;
}

async function newProject(plan?: string) {
  const person = await platform.person({ plan });
  const project = await person.client.call('createProject', { body: { slug: slug(), name: 'Demo' } });
  return { ...person, project };
}

describe('the static deploy flow', () => {
  it('uploads, builds, unpacks into the object store and goes live; a rollback is recorded', async () => {
    const { client, token, project } = await newProject();
    const bytes = await tgz(site);
    const uploadId = await upload(token, client, project.id, bytes);

    const build = await client.call('createBuild', {
      params: { projectId: project.id },
      body: { uploadId, manifest: manifest(), note: 'first' },
    });
    expect(build).toMatchObject({ projectId: project.id, kind: 'static', sizeBytes: bytes.length, note: 'first', live: false });

    const stored = await platform.deps.storage.list(`builds/${build.id}/files/`);
    expect(stored.map((o) => o.key.split('/files/')[1]).sort()).toEqual(Object.keys(site).sort());
    const index = await platform.deps.storage.get(`builds/${build.id}/files/index.html`);
    expect(index?.contentType).toMatch(/^text\/html/);
    expect(await streamText(index!.body)).toBe(site['index.html']);
    expect((await platform.deps.storage.head(`builds/${build.id}/files/img/logo.svg`))?.contentType).toBe('image/svg+xml');

    const live = await client.call('makeLive', { params: { projectId: project.id, buildId: build.id } });
    expect(live.live).toBe(true);
    // Again, while live (a double click): the same answer, no second release.
    expect((await client.call('makeLive', { params: { projectId: project.id, buildId: build.id } })).live).toBe(true);
    expect((await client.call('getProject', { params: { projectId: project.id } })).liveBuildId).toBe(build.id);

    const second = await client.call('createBuild', {
      params: { projectId: project.id },
      body: { uploadId: await upload(token, client, project.id, await tgz({ ...site, 'new.html': 'new' })), manifest: manifest() },
    });
    await client.call('makeLive', { params: { projectId: project.id, buildId: second.id } });
    await client.call('makeLive', { params: { projectId: project.id, buildId: build.id } });

    const builds = await client.call('listBuilds', { params: { projectId: project.id } });
    expect(builds.map((b) => [b.id, b.live])).toEqual([
      [second.id, false],
      [build.id, true],
    ]);
    const history = await client.call('buildHistory', { params: { projectId: project.id } });
    const first = history.find((h) => h.id === build.id)!;
    expect(first.releases).toHaveLength(2);
    expect(first.releases.map((r) => r.rollback)).toEqual([true, false]);
    expect(first.deployedBy).toMatchObject({ userId: expect.any(String) });
  });
});

describe('upload refusals', () => {
  it('refuses an upload over 512 MB, and a container upload on Free', async () => {
    const { client, project } = await newProject();
    const big = await refusal(
      client.call('startUpload', { params: { projectId: project.id }, body: { kind: 'static', sizeBytes: 512 * 1024 * 1024 + 1 } }),
    );
    expect(big).toMatchObject({ status: 422, body: { reason: 'size' } });
    expect(
      (await client.call('startUpload', { params: { projectId: project.id }, body: { kind: 'static', sizeBytes: 512 * 1024 * 1024 } }))
        .putUrl,
    ).toMatch(/^\/api\/uploads\//);
    const container = await refusal(
      client.call('startUpload', { params: { projectId: project.id }, body: { kind: 'container', sizeBytes: 10 } }),
    );
    expect(container).toEqual({
      status: 402,
      body: { error: expect.any(String), reason: 'limit', limit: 'containers', plan: 'free', upgrade: 'solo' },
    });
  });

  it('answers 411 without Content-Length, 422 size for another length, and 422 used for a second PUT', async () => {
    const { client, token, project } = await newProject();
    const bytes = await tgz(site);
    const { putUrl } = await client.call('startUpload', {
      params: { projectId: project.id },
      body: { kind: 'static', sizeBytes: bytes.length },
    });

    const chunked = await fetch(platform.baseUrl + putUrl, {
      method: 'PUT',
      headers: { authorization: `Bearer ${token}` },
      duplex: 'half',
      body: new ReadableStream({
        start(c) {
          c.enqueue(bytes);
          c.close();
        },
      }),
    } as RequestInit);
    expect(chunked.status).toBe(411);
    expect(await chunked.json()).toEqual({ error: 'length required' });

    const short = await platform.fetch(putUrl, { method: 'PUT', token, body: bytes.subarray(1) });
    expect(short.status).toBe(422);
    expect(short.body.reason).toBe('size');

    expect((await platform.fetch(putUrl, { method: 'PUT', token, body: bytes })).status).toBe(204);
    const again = await platform.fetch(putUrl, { method: 'PUT', token, body: bytes });
    expect(again.status).toBe(422);
    expect(again.body.reason).toBe('used');
  });

  it("answers 404 for another workspace's upload and changes nothing", async () => {
    const { client, project } = await newProject();
    const { putUrl } = await client.call('startUpload', { params: { projectId: project.id }, body: { kind: 'static', sizeBytes: 3 } });
    const stranger = await platform.person();
    const res = await platform.fetch(putUrl, { method: 'PUT', token: stranger.token, body: Buffer.from('abc') });
    expect(res.status).toBe(404);
    const [row] = await platform.deps.sql`select state from uploads where id = ${putUrl.split('/').at(-1)!}`;
    expect(row.state).toBe('declared');
  });
});

describe('createBuild refusals', () => {
  it('422 unfinished before the bytes arrive, kind for the other kind, used once spent', async () => {
    const { client, token, project } = await newProject('solo');
    const { uploadId } = await client.call('startUpload', { params: { projectId: project.id }, body: { kind: 'static', sizeBytes: 10 } });
    expect(
      await refusal(client.call('createBuild', { params: { projectId: project.id }, body: { uploadId, manifest: manifest() } })),
    ).toMatchObject({ status: 422, body: { reason: 'unfinished' } });

    const ready = await upload(token, client, project.id, await tgz(site));
    const containerManifest = {
      kind: 'container' as const,
      name: 'C',
      apps: [{ id: 'web', name: 'Web', path: '/', device: 'none' as const }],
      run: { start: ['node', 'server.js'] },
    };
    expect(
      await refusal(
        client.call('createBuild', { params: { projectId: project.id }, body: { uploadId: ready, manifest: containerManifest } }),
      ),
    ).toMatchObject({ status: 422, body: { reason: 'kind' } });

    await client.call('createBuild', { params: { projectId: project.id }, body: { uploadId: ready, manifest: manifest() } });
    expect(
      await refusal(client.call('createBuild', { params: { projectId: project.id }, body: { uploadId: ready, manifest: manifest() } })),
    ).toMatchObject({ status: 422, body: { reason: 'used' } });
  });

  it('400 invalid naming the manifest field at fault, and nothing is built', async () => {
    const { client, token, project } = await newProject();
    const uploadId = await upload(token, client, project.id, await tgz(site));
    const bad = manifest({
      apps: [
        { id: 'web', name: 'A', path: '/', device: 'laptop' },
        { id: 'web', name: 'B', path: '/b', device: 'phone' },
      ],
    });
    const res = await platform.fetch(`/api/projects/${project.id}/builds`, { method: 'POST', token, json: { uploadId, manifest: bad } });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid');
    expect(res.body.issues.map((i: { path: string }) => i.path)).toContain('manifest.apps[1].id');

    const unknownField = await platform.fetch(`/api/projects/${project.id}/builds`, {
      method: 'POST',
      token,
      json: { uploadId, manifest: manifest({ controls: {} }) },
    });
    expect(unknownField.status).toBe(400);
    expect(unknownField.body.issues.map((i: { path: string }) => i.path)).toContain('manifest.controls');
    expect(await client.call('listBuilds', { params: { projectId: project.id } })).toEqual([]);
  });

  it('400 for a story step whose page is not in the unpacked files (rule 8), leaving no files behind', async () => {
    const { client, token, project } = await newProject();
    const uploadId = await upload(token, client, project.id, await tgz(site));
    const story = [
      { id: 'one', title: 'Docs', say: 'The docs', app: 'web', path: '/docs' },
      { id: 'two', title: 'Gone', say: 'Missing', app: 'web', path: '/missing.html' },
    ];
    const res = await platform.fetch(`/api/projects/${project.id}/builds`, {
      method: 'POST',
      token,
      json: { uploadId, manifest: manifest({ story }) },
    });
    expect(res.status).toBe(400);
    expect(res.body.issues.map((i: { path: string }) => i.path)).toEqual(['manifest.story[1].path']);
    expect(await client.call('listBuilds', { params: { projectId: project.id } })).toEqual([]);
  });

  it('422 archive naming the entry for a hostile archive, with nothing stored', async () => {
    const { client, token, project } = await newProject();
    const uploadId = await upload(token, client, project.id, await tgz({ ...site, '../escape.html': 'x' }));
    const r = await refusal(client.call('createBuild', { params: { projectId: project.id }, body: { uploadId, manifest: manifest() } }));
    expect(r).toMatchObject({
      status: 422,
      body: { error: 'refused: archive', reason: 'archive', detail: expect.stringContaining('escape.html') },
    });
    expect(await platform.deps.storage.list('builds/')).not.toContainEqual(
      expect.objectContaining({ key: expect.stringContaining('escape') }),
    );
    expect(await client.call('listBuilds', { params: { projectId: project.id } })).toEqual([]);
  });

  it("402 deploys beyond the plan's deploys in 24 hours", async () => {
    const { client, token, project, email } = await newProject();
    const uploadId = await upload(token, client, project.id, await tgz(site));
    // Twenty earlier deploys today, written directly: making them through the api is slow and proves nothing more.
    await platform.deps.sql`
      with ws as (select workspace_id from personal_workspaces pw join people p on p.id = pw.person_id where p.email = ${email}),
      ups as (insert into uploads (workspace_id, project_id, kind, size_bytes, state)
              select (select workspace_id from ws), ${project.id}, 'static', 1, 'used' from generate_series(1, 20) returning id, workspace_id)
      insert into builds (id, workspace_id, project_id, upload_id, kind, manifest, size_bytes)
      select gen_random_uuid(), workspace_id, ${project.id}, id, 'static', '{}'::jsonb, 1 from ups`;
    const r = await refusal(client.call('createBuild', { params: { projectId: project.id }, body: { uploadId, manifest: manifest() } }));
    expect(r).toEqual({
      status: 402,
      body: { error: expect.any(String), reason: 'limit', limit: 'deploys', plan: 'free', upgrade: 'solo' },
    });
  });

  it('423 while the platform has the project taken down, for uploads, builds and going live', async () => {
    const { client, token, project } = await newProject();
    const uploadId = await upload(token, client, project.id, await tgz(site));
    const build = await client.call('createBuild', { params: { projectId: project.id }, body: { uploadId, manifest: manifest() } });
    await platform.deps.sql`update projects set taken_down_at = now() where id = ${project.id}`;
    for (const call of [
      () => client.call('startUpload', { params: { projectId: project.id }, body: { kind: 'static', sizeBytes: 5 } }),
      () => client.call('createBuild', { params: { projectId: project.id }, body: { uploadId, manifest: manifest() } }),
      () => client.call('makeLive', { params: { projectId: project.id, buildId: build.id } }),
    ]) {
      expect(await refusal(call())).toMatchObject({ status: 423, body: { reason: 'paused' } });
    }
  });

  it('404 for a build or upload of another project or workspace', async () => {
    const a = await newProject();
    const uploadId = await upload(a.token, a.client, a.project.id, await tgz(site));
    const build = await a.client.call('createBuild', { params: { projectId: a.project.id }, body: { uploadId, manifest: manifest() } });
    const b = await newProject();
    expect((await refusal(b.client.call('makeLive', { params: { projectId: b.project.id, buildId: build.id } }))).status).toBe(404);
    expect((await refusal(b.client.call('listBuilds', { params: { projectId: a.project.id } }))).status).toBe(404);
    const theirs = await upload(a.token, a.client, a.project.id, await tgz(site));
    expect(
      (
        await refusal(
          b.client.call('createBuild', { params: { projectId: b.project.id }, body: { uploadId: theirs, manifest: manifest() } }),
        )
      ).status,
    ).toBe(404);
  });
});

async function streamText(body: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of body) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
