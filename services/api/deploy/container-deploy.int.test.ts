import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeBundle } from '../../../test/fixtures/make-bundle.js';
import { bundleOf, imageEntries, type TarEntry } from '../../../test/fixtures/bundle-tricks.js';
import { tgz } from '../../../test/support/archives.js';
import { refusal } from '../../../test/support/refusal.js';
import { startPlatform, type Platform } from '../../../test/support/platform.js';
import { testEnv } from '../../../test/support/services.js';
import { containerDemo, containerDemoManifest } from '../../../test/fixtures/container-demo.js';

let platform: Platform;
beforeAll(async () => {
  platform = await startPlatform({ workers: true });
});
afterAll(async () => {
  await platform.close();
});

const demo = containerDemo;
const manifest = containerDemoManifest('Container demo');

async function deploy(bytes: Buffer, plan = 'solo') {
  const { client, token } = await platform.person({ plan });
  const project = await client.call('createProject', { body: { slug: `c-${crypto.randomUUID().slice(0, 12)}`, name: 'C' } });
  const { uploadId, putUrl } = await client.call('startUpload', {
    params: { projectId: project.id },
    body: { kind: 'container', sizeBytes: bytes.length },
  });
  expect((await platform.fetch(putUrl, { method: 'PUT', token, body: bytes })).status).toBe(204);
  return { client, token, project, uploadId };
}

describe('container builds', () => {
  it('takes a bundle made by the engine (podman save), reads its image and goes live', async () => {
    const bytes = await makeBundle(demo, testEnv() as unknown as Record<string, string>);
    const { client, project, uploadId } = await deploy(bytes);
    const build = await client.call('createBuild', { params: { projectId: project.id }, body: { uploadId, manifest } });
    expect(build).toMatchObject({ kind: 'container', sizeBytes: bytes.length, live: false });
    const [row] = await platform.deps.sql<
      { image: { cmd: string[]; workingDir: string } }[]
    >`select image from builds where id = ${build.id}`;
    expect(row.image.cmd).toEqual(['node', 'server.js']);
    expect(row.image.workingDir).toBe('/app');
    expect((await client.call('makeLive', { params: { projectId: project.id, buildId: build.id } })).live).toBe(true);
  });

  it('refuses with 422 archive a bundle that is not an image archive', async () => {
    const { client, project, uploadId } = await deploy(await tgz({ 'index.html': 'not an image' }));
    const r = await refusal(client.call('createBuild', { params: { projectId: project.id }, body: { uploadId, manifest } }));
    expect(r).toMatchObject({ status: 422, body: { reason: 'archive', detail: expect.stringContaining('manifest.json') } });
  });

  it('refuses a container build without run with 400 naming run', async () => {
    const { token, project, uploadId } = await deploy(await tgz({ x: 'y' }));
    const { run: _run, ...noRun } = manifest;
    const res = await platform.fetch(`/api/projects/${project.id}/builds`, { method: 'POST', token, json: { uploadId, manifest: noRun } });
    expect(res.status).toBe(400);
    expect(res.body.issues.map((i: { path: string }) => i.path)).toContain('manifest.run');
  });

  it('refuses with 422 archive, and makes nothing of, a bundle that tries to name its own manifest or index', async () => {
    const image = await imageEntries({ repoTags: ['localhost/build-00000000-0000-4000-8000-000000000000:latest'] });
    const own = String(image.entries.find((e) => e.name === 'manifest.json')!.body);
    const tricks: Record<string, TarEntry[]> = {
      './manifest.json': [{ name: './manifest.json', body: own }, ...image.entries],
      'Manifest.json': [{ name: 'Manifest.json', body: own }, ...image.entries],
      'manifest.json/': [{ name: 'manifest.json/', type: 'directory' }, ...image.entries],
      './/manifest.json': [{ name: './/manifest.json', body: own }, ...image.entries],
      'index.json': [{ name: 'index.json', body: '{"schemaVersion":2,"manifests":[]}' }, ...image.entries],
      'two images': [
        ...image.entries.filter((e) => e.name !== 'manifest.json'),
        { name: 'manifest.json', body: JSON.stringify([...JSON.parse(own), ...JSON.parse(own)]) },
      ],
      'a stray entry': [...image.entries, { name: 'other.tar', body: 'x' }],
    };
    for (const [trick, entries] of Object.entries(tricks)) {
      const { client, project, uploadId } = await deploy(await bundleOf(entries));
      const r = await refusal(client.call('createBuild', { params: { projectId: project.id }, body: { uploadId, manifest } }));
      expect(r, trick).toMatchObject({ status: 422, body: { error: 'refused: archive', reason: 'archive', detail: expect.any(String) } });
      expect(await client.call('listBuilds', { params: { projectId: project.id } }), trick).toEqual([]);
    }
  });

  it('records the image id (the config digest) of a hand-made bundle, and strips nothing else from the check', async () => {
    const image = await imageEntries();
    const { client, project, uploadId } = await deploy(await bundleOf(image.entries));
    const build = await client.call('createBuild', { params: { projectId: project.id }, body: { uploadId, manifest } });
    const [row] = await platform.deps.sql<{ image: { id: string } }[]>`select image from builds where id = ${build.id}`;
    expect(row.image.id).toBe(image.imageId);
  });

  it('refuses with 422 archive a bundle of more entries than the limit', async () => {
    const image = await imageEntries();
    const many = Array.from({ length: 2_100 }, (_, i) => ({ name: `${String(i).padStart(64, '0')}/VERSION`, body: '1.0' }));
    const { client, project, uploadId } = await deploy(await bundleOf([...many, ...image.entries]));
    const r = await refusal(client.call('createBuild', { params: { projectId: project.id }, body: { uploadId, manifest } }));
    expect(r).toMatchObject({ status: 422, body: { reason: 'archive', detail: expect.stringContaining('more than 2000 entries') } });
  });
});
