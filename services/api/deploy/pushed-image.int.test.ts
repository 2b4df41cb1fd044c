import { Readable } from 'node:stream';
import { maxSentManifestChars } from '@demo-rooms/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dockerFrom } from '../../../runner/app.js';
import { DockerEngine } from '../../../runner/engine/docker-engine.js';
import { createImageStore, imageTagOf } from '../../../runner/images/image-store.js';
import { saveImage } from '../../../test/fixtures/make-bundle.js';
import { refusal } from '../../../test/support/refusal.js';
import { startPlatform, type Platform } from '../../../test/support/platform.js';
import { testEnv } from '../../../test/support/services.js';
import { pushImage } from '../../cli/registry/push-image.js';
import { loadConfig } from '../../core/infra/config.js';
import { createSql, type Sql } from '../../core/infra/db.js';
import { createLogger } from '../../core/infra/log.js';
import { registryGet, registryOf, RegistryReadError } from '../../core/infra/registry/registry-pull.js';
import { sweepManifests } from '../../../workers/leftovers-sweep/pushed-manifests.sweep.js';
import { createStorage } from '../../core/infra/storage.js';
import { buildImageOf } from '../../data/build-images.sql.js';
import { containerDemo, containerDemoManifest } from '../../../test/fixtures/container-demo.js';

// A container build from an image pushed to the registry (issue 32): createBuild by the manifest's
// digest, the bundle check read from the registry, and a runner whose engine lacks the image
// pulling it by that digest.
const env = testEnv() as unknown as Record<string, string>;
const config = loadConfig(env);
const demo = containerDemo;
const manifest = containerDemoManifest('Pushed demo');

let platform: Platform;
let sql: Sql;
const engine = new DockerEngine(dockerFrom(config.DOCKER_HOST));
const tags: string[] = [];
beforeAll(async () => {
  platform = await startPlatform({ workers: true });
  sql = createSql(config.DATABASE_URL, { max: 2 });
});
afterAll(async () => {
  for (const tag of tags) await engine.removeImage(tag).catch(() => {});
  await sql?.end({ timeout: 2 });
  await platform?.close();
});

async function pushed() {
  const person = await platform.person({ plan: 'solo' });
  const project = await person.client.call('createProject', { body: { slug: `p-${crypto.randomUUID().slice(0, 12)}`, name: 'P' } });
  const account = await person.client.call('whoami', {});
  const repository = `${account.workspace.id}/${project.id}`;
  const res = await platform.fetch(`/v2/token?scope=${encodeURIComponent(`repository:${repository}:push,pull`)}`, {
    headers: { authorization: `Bearer ${person.token}` },
  });
  const { token, registry } = res.body as { token: string; registry: string };
  const image = await pushImage({ registryUrl: registry, repository, token }, Readable.from(await saveImage(demo, env)));
  return { ...person, project, image };
}

describe('a build from a pushed image', () => {
  it('is checked from the registry, records the manifest digest, and a cleared engine pulls it by digest', async () => {
    const { client, project, image } = await pushed();
    const build = await client.call('createBuild', {
      params: { projectId: project.id },
      body: { image: { digest: image.manifestDigest }, manifest },
    });
    expect(build.kind).toBe('container');
    const row = await buildImageOf(sql, build.id);
    expect(row).toMatchObject({ uploadId: null, imageManifest: image.manifestDigest, image: { id: image.configDigest } });

    // The image was removed from the engine after it was saved (saveImage): the runner pulls it.
    const store = createImageStore({
      sql,
      storage: createStorage(config),
      engine,
      hostImages: engine,
      log: createLogger({ name: 'pushed-test', level: 'silent' }),
      maxImageBytes: config.RUNNER_MAX_IMAGE_BYTES,
      registry: registryOf(config),
    });
    tags.push(imageTagOf(build.id));
    expect(await engine.imageId(image.configDigest)).toBeNull();
    expect(await store.ensure(build.id)).toBe(image.configDigest);
    expect(await engine.imageId(imageTagOf(build.id))).toBe(image.configDigest);
  });

  it('refuses a digest the repository does not hold, and an image for a static manifest', async () => {
    const { client, project } = await pushed();
    const missing = `sha256:${'0'.repeat(64)}`;
    const err = await refusal(
      client.call('createBuild', { params: { projectId: project.id }, body: { image: { digest: missing }, manifest } }),
    );
    expect(err).toMatchObject({ status: 422, body: { reason: 'archive' } });
    const staticManifest = {
      kind: 'static' as const,
      name: 'S',
      output: 'dist',
      apps: [{ id: 'web', name: 'Web', path: '/', device: 'laptop' as const }],
    };
    const kind = await refusal(
      client.call('createBuild', { params: { projectId: project.id }, body: { image: { digest: missing }, manifest: staticManifest } }),
    );
    expect(kind).toMatchObject({ status: 422, body: { reason: 'kind' } });
  });

  it("refuses the manifest's text past its bound with 400, and makes no build", async () => {
    const { client, token, project, image } = await pushed();
    const res = await platform.fetch(`/api/projects/${project.id}/builds`, {
      method: 'POST',
      token,
      json: { image: { digest: image.manifestDigest, manifest: 'x'.repeat(maxSentManifestChars + 1) }, manifest },
    });
    expect(res.status).toBe(400);
    expect(await client.call('listBuilds', { params: { projectId: project.id } })).toEqual([]);
  });

  it('has its manifest deleted from the registry by the sweep once its project is purged', async () => {
    const { client, project, image } = await pushed();
    const build = await client.call('createBuild', {
      params: { projectId: project.id },
      body: { image: { digest: image.manifestDigest }, manifest },
    });
    const row = (await buildImageOf(sql, build.id))!;
    const repository = `${row.workspaceId}/${row.projectId}`;
    const registry = registryOf(config)!;
    expect((await registryGet(registry, repository, `manifests/${image.manifestDigest}`)).status).toBe(200);
    // Deleted 30 days ago and purged, as the deleted-projects sweep leaves it.
    await sql`update projects set deleted_at = now() - interval '31 days', purged_at = now() where id = ${project.id}`;
    await sweepManifests(sql, registry);
    await expect(registryGet(registry, repository, `manifests/${image.manifestDigest}`)).rejects.toBeInstanceOf(RegistryReadError);
    const [mark] = await sql<{ deleted: boolean }[]>`select manifest_deleted_at is not null as deleted from builds where id = ${build.id}`;
    expect(mark.deleted).toBe(true);
  });

  it('cannot be made live again once its image was collected, and the live build stays', async () => {
    const { client, project, image } = await pushed();
    const body = { image: { digest: image.manifestDigest }, manifest };
    const older = await client.call('createBuild', { params: { projectId: project.id }, body });
    const newer = await client.call('createBuild', { params: { projectId: project.id }, body });
    await client.call('makeLive', { params: { projectId: project.id, buildId: newer.id } });
    // What the sweep records when it deletes a superseded build's manifest (registry-gc).
    await sql`update builds set manifest_deleted_at = now() where id = ${older.id}`;
    const err = await refusal(client.call('makeLive', { params: { projectId: project.id, buildId: older.id } }));
    expect(err).toMatchObject({ status: 422, body: { error: 'refused: collected', reason: 'collected' } });
    const [row] = await sql<{ live: string }[]>`select live_build_id as live from projects where id = ${project.id}`;
    expect(row.live).toBe(newer.id);
  });

  it('cannot be made live once the sweep collected the image under a later build of the same image', async () => {
    const { client, project, image } = await pushed();
    const body = { image: { digest: image.manifestDigest }, manifest };
    // The same image deployed twice, neither made live, both unused for two days: the sweep
    // deletes the manifest for the later one, which is the repository's one manifest of both.
    const first = await client.call('createBuild', { params: { projectId: project.id }, body });
    const second = await client.call('createBuild', { params: { projectId: project.id }, body });
    await sql`update builds set created_at = created_at - interval '2 days' where id in (${first.id}, ${second.id})`;
    const registry = registryOf(config)!;
    const repository = `${(await buildImageOf(sql, first.id))!.workspaceId}/${project.id}`;
    expect((await sweepManifests(sql, registry)).superseded).toBeGreaterThanOrEqual(1);
    await expect(registryGet(registry, repository, `manifests/${image.manifestDigest}`)).rejects.toBeInstanceOf(RegistryReadError);

    for (const build of [first, second]) {
      const err = await refusal(client.call('makeLive', { params: { projectId: project.id, buildId: build.id } }));
      expect(err).toMatchObject({ status: 422, body: { error: 'refused: collected', reason: 'collected' } });
    }
    const [row] = await sql<{ live: string | null }[]>`select live_build_id as live from projects where id = ${project.id}`;
    expect(row.live).toBeNull();
  });
});
