import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registryBucket, startRegistry } from '../../infra/local/registry.mjs';
import { pushImage } from '../../services/cli/registry/push-image.js';
import { loadConfig } from '../../services/core/infra/config.js';
import { createSql, type Sql } from '../../services/core/infra/db.js';
import { createLogger } from '../../services/core/infra/log.js';
import { migrate } from '../../services/core/infra/migrate.js';
import { MANIFEST_TYPES, RegistryReadError, registryGet, registryOf } from '../../services/core/infra/registry/registry-pull.js';
import { createStorage } from '../../services/core/infra/storage.js';
import { saveImage } from '../../test/fixtures/make-bundle.js';
import { startPlatform, type Platform } from '../../test/support/platform.js';
import { testEnv } from '../../test/support/services.js';
import { sweepAccountPurges } from '../account-purge/account-purge.job.js';
import { SWEEP_EVERY_MS, sweep } from './sweep.job.js';
import { registryGcEveryHours, registryGcTargetOf, registryGcWaitSeconds } from './registry-gc.sweep.js';
import { containerDemo, containerDemoManifest } from '../../test/fixtures/container-demo.js';

// The registry's garbage collection, scheduled by the sweep (issue 32): a purged project's
// manifest is deleted, pushes close, and once the push tokens have run out garbage-collect frees
// the layers only that manifest named; a layer another workspace's image still names stays.
// The collection closes pushes for a whole registry and the sweep reads the whole database, so
// this file has a registry (and bucket) and a database of its own: no other test is touched.

const env = testEnv() as unknown as Record<string, string>;
const scratchName = `registry_gc_${randomBytes(6).toString('hex')}`;
const scratchUrl = Object.assign(new URL(env.DATABASE_URL), { pathname: `/${scratchName}` }).toString();
const admin = createSql(env.DATABASE_URL, { max: 1 });
const bucket = `registry-gc-${randomBytes(4).toString('hex')}`;
const demo = containerDemo;
const manifest = containerDemoManifest('Collected');

let dataDir: string;
let registry: Awaited<ReturnType<typeof startRegistry>>;
let platform: Platform;
let sql: Sql;

beforeAll(async () => {
  await admin.unsafe(`create database "${scratchName}"`);
  sql = createSql(scratchUrl, { max: 4 });
  await migrate(sql);
  dataDir = await mkdtemp(join(tmpdir(), 'registry-gc-'));
  // With a blob descriptor cache in a Redis database of its own (4: the platform's tests use 1, the
  // test services' registry 3), as the launcher gives every registry it starts.
  const cacheRedis = `redis://${new URL(env.REDIS_URL!).host}/4`;
  registry = await startRegistry({ dataDir, quiet: true, s3: { ...env, REGISTRY_S3_BUCKET: bucket }, cacheRedis });
  platform = await startPlatform({ workers: true, env: { DATABASE_URL: scratchUrl, ...registry.env } });
}, 120_000);
afterAll(async () => {
  await platform?.close();
  await registry?.stop();
  await sql?.end({ timeout: 2 });
  await admin.unsafe(`drop database if exists "${scratchName}" with (force)`);
  await admin.end({ timeout: 2 });
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

const config = () => loadConfig({ ...env, DATABASE_URL: scratchUrl, ...registry.env });
const runSweep = () =>
  sweep({ config: config(), sql, storage: createStorage(config()), log: createLogger({ name: 'registry-gc-test', level: 'silent' }) });
/** Whether the registry's bucket holds the blob's bytes (Distribution's layout on S3). */
const blobStored = async (digest: string) => {
  const hex = digest.slice('sha256:'.length);
  const store = createStorage(loadConfig({ ...env, S3_BUCKET: registryBucket({ REGISTRY_S3_BUCKET: bucket }) }));
  return (await store.head(`docker/registry/v2/blobs/sha256/${hex.slice(0, 2)}/${hex}/data`)) !== null;
};

async function tokenFor(person: Awaited<ReturnType<Platform['person']>>, repository: string, actions: string) {
  return platform.fetch(`/v2/token?scope=${encodeURIComponent(`repository:${repository}:${actions}`)}`, {
    headers: { authorization: `Bearer ${person.token}` },
  });
}

/** A solo person's new project, its repository and a push token for it. */
async function projectToPushTo(prefix: string) {
  const person = await platform.person({ plan: 'solo' });
  const project = await person.client.call('createProject', {
    body: { slug: `${prefix}-${randomBytes(6).toString('hex')}`, name: prefix },
  });
  const account = await person.client.call('whoami', {});
  const repository = `${account.workspace.id}/${project.id}`;
  const { token, registry: url } = (await tokenFor(person, repository, 'push,pull')).body as { token: string; registry: string };
  return { person, project, account, repository, token, url };
}

/** An image of the demo with a line of its own in server.js, saved as the engine saves it. */
async function demoArchive(line: string): Promise<Buffer> {
  const dir = await mkdtemp(join(tmpdir(), 'registry-gc-demo-'));
  await cp(demo, dir, { recursive: true });
  await writeFile(join(dir, 'server.js'), `// ${line}\n`, { flag: 'a' });
  const saved = await saveImage(dir, env);
  await rm(dir, { recursive: true, force: true });
  return saved;
}

/** A person whose project holds a build from an image pushed from `folder`. */
async function pushedBuild(folder: string, kind: 'cli' | 'web' = 'cli') {
  const person = await platform.person({ plan: 'solo', kind });
  const slug = `g-${randomBytes(6).toString('hex')}`;
  const project = await person.client.call('createProject', { body: { slug, name: 'G' } });
  const account = await person.client.call('whoami', {});
  const repository = `${account.workspace.id}/${project.id}`;
  const { token, registry: url } = (await tokenFor(person, repository, 'push,pull')).body as { token: string; registry: string };
  const image = await pushImage({ registryUrl: url, repository, token }, Readable.from(await saveImage(folder, env)));
  await person.client.call('createBuild', {
    params: { projectId: project.id },
    body: { image: { digest: image.manifestDigest }, manifest },
  });
  const pushed = (await (
    await registryGet(registryOf(config())!, repository, `manifests/${image.manifestDigest}`, MANIFEST_TYPES.join(', '))
  ).json()) as {
    layers: { digest: string }[];
  };
  return { person, project: { ...project, slug }, repository, image: { ...image, layers: pushed.layers.map((l) => l.digest) } };
}

describe('the registry garbage collection', () => {
  it('frees the layers only a purged build named, keeps a layer another workspace names, and closes pushes meanwhile', async () => {
    // A: the demo with a server.js of its own (a layer only A has); B: the demo as it is. Both
    // share the Node base's layers.
    const own = await mkdtemp(join(tmpdir(), 'registry-gc-demo-'));
    await cp(demo, own, { recursive: true });
    await writeFile(join(own, 'server.js'), `// ${randomBytes(8).toString('hex')}\n`, { flag: 'a' });
    const a = await pushedBuild(own);
    await rm(own, { recursive: true, force: true });
    const b = await pushedBuild(demo);

    // The manifest is a blob too, in Distribution's store.
    const onlyA = [a.image.manifestDigest, a.image.configDigest, ...a.image.layers.filter((d) => !b.image.layers.includes(d))];
    const shared = a.image.layers.filter((d) => b.image.layers.includes(d));
    expect(onlyA.length).toBeGreaterThan(2);
    expect(shared.length).toBeGreaterThan(0);
    for (const digest of [...onlyA, ...shared]) expect(await blobStored(digest)).toBe(true);

    // A's project is purged (as the deleted-projects sweep leaves it); the sweep deletes its
    // manifest and closes pushes.
    await sql`update projects set deleted_at = now() - interval '31 days', purged_at = now() where id = ${a.project.id}`;
    expect(await runSweep()).toMatchObject({ pushedManifests: 1, registryGc: 'pushes closed' });

    // While closed: a push token is refused with when to come back; a pull token is given.
    const refused = await tokenFor(b.person, b.repository, 'push,pull');
    expect(refused.status).toBe(503);
    expect((refused.body as { error: string }).error).toMatch(/collecting unused layers: pushes resume by \d\d:\d\d UTC/);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    expect((await tokenFor(b.person, b.repository, 'pull')).status).toBe(200);
    // Push tokens issued before the close may still be in use: the next sweep waits them out.
    expect(await runSweep()).toMatchObject({ registryGc: 'waiting' });

    // Once the longest push token has expired (the close moved back past it), the next sweep collects.
    await sql`update registry_gc set pushes_closed_at = pushes_closed_at - interval '1 hour'`;
    expect(await runSweep()).toMatchObject({ registryGc: 'collected' });
    for (const digest of onlyA) expect(await blobStored(digest)).toBe(false);
    for (const digest of shared) expect(await blobStored(digest)).toBe(true);
    // The registry's cache was emptied with the collection: it held that A's repository had these
    // blobs (its push and check put them there), and kept, it would still answer for them.
    for (const digest of onlyA)
      await expect(registryGet(registryOf(config())!, a.repository, `blobs/${digest}`)).rejects.toBeInstanceOf(RegistryReadError);
    const [row] = await sql<{ lastResult: { blobs: number; digests: string[] } }[]>`select last_result from registry_gc`;
    expect(row.lastResult.blobs).toBe(onlyA.length);
    expect(row.lastResult.digests.sort()).toEqual([...onlyA].sort());

    // B still pulls whole, and pushes are open again; nothing more is wanted.
    const pull = registryOf(config())!;
    for (const digest of b.image.layers) expect((await registryGet(pull, b.repository, `blobs/${digest}`)).status).toBe(200);
    expect((await tokenFor(b.person, b.repository, 'push,pull')).status).toBe(200);
    expect(await runSweep()).toMatchObject({ pushedManifests: 0, registryGc: 'not wanted' });
  }, 300_000);

  it('deletes a deleted account’s pushed manifests with its purge, and wants a collection', async () => {
    const gone = await pushedBuild(demo, 'web');
    const pull = registryOf(config())!;
    expect((await registryGet(pull, gone.repository, `manifests/${gone.image.manifestDigest}`)).status).toBe(200);
    // An account holding projects cannot go: the project is deleted first (its build stays until purged).
    await gone.person.client.call('deleteProject', { params: { projectId: gone.project.id }, body: { confirm: gone.project.slug } });
    expect(await gone.person.browser.call('deleteAccount', { body: { confirm: gone.person.email } })).toEqual({ deleted: true });
    // The purge, as the account.purge job (or the sweep after it) runs it.
    expect(await sweepAccountPurges({ sql, storage: createStorage(config()), config: config() }, 0)).toBe(1);
    await expect(registryGet(pull, gone.repository, `manifests/${gone.image.manifestDigest}`)).rejects.toBeInstanceOf(RegistryReadError);
    const [row] = await sql<{ wanted: boolean }[]>`select wanted_since is not null as wanted from registry_gc`;
    expect(row.wanted).toBe(true);
    // The first test collected minutes ago: one collection a day, so this one waits its turn.
    expect(await runSweep()).toMatchObject({ registryGc: 'not due' });
    await sql`update registry_gc set last_run_at = last_run_at - interval '25 hours'`;
    expect(await runSweep()).toMatchObject({ registryGc: 'pushes closed' });
    await sql`update registry_gc set pushes_closed_at = pushes_closed_at - interval '1 hour'`;
    expect(await runSweep()).toMatchObject({ registryGc: 'collected' });
    // Its config was its own (a build of its own, made at another second): freed with the manifest.
    expect(await blobStored(gone.image.manifestDigest)).toBe(false);
    expect(await blobStored(gone.image.configDigest)).toBe(false);
  }, 300_000);

  it("collects a superseded build's layers on the schedule, within a day of it being superseded (issue 45, H1)", async () => {
    // The schedule: the sweep every hour deletes the manifest; a collection runs at most every
    // registryGcEveryHours, after its wait; so from superseded to freed is under a day.
    const waitHours = (registryGcWaitSeconds(registryGcTargetOf(config())!) + 30) / 3600;
    expect(SWEEP_EVERY_MS / 3_600_000 + registryGcEveryHours + waitHours + 1).toBeLessThanOrEqual(24);

    const { person, project, account, repository, token, url } = await projectToPushTo('s');
    const pull = registryOf(config())!;
    const deploy = async (line: string) => {
      const image = await pushImage({ registryUrl: url, repository, token }, Readable.from(await demoArchive(line)));
      const build = await person.client.call('createBuild', {
        params: { projectId: project.id },
        body: { image: { digest: image.manifestDigest }, manifest },
      });
      const pushed = (await (
        await registryGet(pull, repository, `manifests/${image.manifestDigest}`, MANIFEST_TYPES.join(', '))
      ).json()) as {
        layers: { digest: string }[];
      };
      return { id: build.id, manifest: image.manifestDigest, config: image.configDigest, layers: pushed.layers.map((l) => l.digest) };
    };
    const one = await deploy(`one ${randomBytes(8).toString('hex')}`);
    const two = await deploy(`two ${randomBytes(8).toString('hex')}`);
    const three = await deploy(`three ${randomBytes(8).toString('hex')}`);
    // Two made live in turn, then three: one is superseded; two stays as the rollback.
    for (const build of [one, two, three]) {
      await sql`update projects set live_build_id = ${build.id} where id = ${project.id}`;
      await sql`insert into releases (workspace_id, project_id, build_id) values (${account.workspace.id}, ${project.id}, ${build.id})`;
    }
    const kept = [two, three].flatMap((b) => [b.manifest, b.config, ...b.layers]);
    const onlyOne = [one.manifest, one.config, ...one.layers.filter((d) => !kept.includes(d))];
    expect(onlyOne.length).toBeGreaterThan(2);
    for (const digest of onlyOne) expect(await blobStored(digest)).toBe(true);

    // The next sweep deletes its manifest; the collection then waits its turn (the last ran minutes ago).
    expect(await runSweep()).toMatchObject({ pushedManifests: 1, registryGc: 'not due' });
    await expect(registryGet(pull, repository, `manifests/${one.manifest}`)).rejects.toBeInstanceOf(RegistryReadError);
    await sql`update registry_gc set last_run_at = last_run_at - make_interval(hours => ${registryGcEveryHours + 1})`;
    expect(await runSweep()).toMatchObject({ registryGc: 'pushes closed' });
    await sql`update registry_gc set pushes_closed_at = pushes_closed_at - interval '1 hour'`;
    expect(await runSweep()).toMatchObject({ registryGc: 'collected' });
    for (const digest of onlyOne) expect(await blobStored(digest)).toBe(false);
    for (const digest of kept) expect(await blobStored(digest)).toBe(true);
    // And what was freed no longer counts against the workspace's quota.
    const counted = await sql<{ digest: string }[]>`
      select digest from registry_pushes where workspace_id = ${account.workspace.id} and digest = any(${onlyOne}::text[])`;
    expect(counted).toEqual([]);
  }, 300_000);

  it('deletes a manifest no build names a day after its push (a rehearsal failed after it went up), and its layers are collected', async () => {
    const { person, project, account, repository, token, url } = await projectToPushTo('u');
    const pull = registryOf(config())!;
    const archive = demoArchive;
    const push = (saved: Buffer) => pushImage({ registryUrl: url, repository, token }, Readable.from(saved));
    const manifestAt = async (digest: string) =>
      registryGet(pull, repository, `manifests/${digest}`).then(
        (res) => res.status,
        (err: unknown) => (err instanceof RegistryReadError ? 404 : Promise.reject(err)),
      );

    // Left: pushed, never built (its deploy's rehearsal failed). Built: pushed, then createBuild.
    // Again: pushed, never built, and pushed again a day later (the same files make the same manifest).
    const left = await push(await archive(`left ${randomBytes(8).toString('hex')}`));
    const built = await push(await archive(`built ${randomBytes(8).toString('hex')}`));
    await person.client.call('createBuild', {
      params: { projectId: project.id },
      body: { image: { digest: built.manifestDigest }, manifest },
    });
    const againArchive = await archive(`again ${randomBytes(8).toString('hex')}`);
    const again = await push(againArchive);
    const rows = await sql<{ digest: string; projectId: string }[]>`
      select digest, project_id from registry_pushes where workspace_id = ${account.workspace.id} and upload like 'manifest:%'`;
    expect(rows.map((row) => row.digest).sort()).toEqual([left.manifestDigest, built.manifestDigest, again.manifestDigest].sort());
    expect(new Set(rows.map((row) => row.projectId))).toEqual(new Set([project.id]));

    const layersOf = async (digest: string) =>
      (
        (await (await registryGet(pull, repository, `manifests/${digest}`, MANIFEST_TYPES.join(', '))).json()) as {
          layers: { digest: string }[];
        }
      ).layers.map((layer) => layer.digest);
    const kept = [...(await layersOf(built.manifestDigest)), ...(await layersOf(again.manifestDigest))];
    const leftOwn = (await layersOf(left.manifestDigest)).filter((digest) => !kept.includes(digest));
    expect(leftOwn.length).toBeGreaterThan(0);

    // Within the day: nothing is deleted.
    expect(await runSweep()).toMatchObject({ unbuiltManifests: 0 });
    await sql`update registry_pushes set started_at = started_at - interval '25 hours' where workspace_id = ${account.workspace.id}`;
    await push(againArchive);
    expect(await runSweep()).toMatchObject({ unbuiltManifests: 1 });
    expect(await manifestAt(left.manifestDigest)).toBe(404);
    expect(await manifestAt(built.manifestDigest)).toBe(200);
    expect(await manifestAt(again.manifestDigest)).toBe(200);
    // Deleted once: the next sweep finds nothing more.
    expect(await runSweep()).toMatchObject({ unbuiltManifests: 0 });

    // Its own layer, config and manifest go with the next collection; the others' stay.
    await sql`update registry_gc set last_run_at = last_run_at - make_interval(hours => ${registryGcEveryHours + 1})`;
    expect(await runSweep()).toMatchObject({ registryGc: 'pushes closed' });
    await sql`update registry_gc set pushes_closed_at = pushes_closed_at - interval '1 hour'`;
    expect(await runSweep()).toMatchObject({ registryGc: 'collected' });
    expect(await blobStored(left.manifestDigest)).toBe(false);
    expect(await blobStored(left.configDigest)).toBe(false);
    for (const digest of leftOwn) expect(await blobStored(digest)).toBe(false);
    for (const digest of [built.manifestDigest, built.configDigest, ...kept]) expect(await blobStored(digest)).toBe(true);
  }, 300_000);
});
