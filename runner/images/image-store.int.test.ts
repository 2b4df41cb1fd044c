import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../services/core/infra/config.js';
import { createSql, type Sql } from '../../services/core/infra/db.js';
import { createLogger } from '../../services/core/infra/log.js';
import { createStorage, type Storage } from '../../services/core/infra/storage.js';
import { claimingBundle, entriesOfBundle, tarOf } from '../../test/fixtures/bundle-tricks.js';
import { testEnv } from '../../test/support/services.js';
import { dockerFrom } from '../app.js';
import { DockerEngine } from '../engine/docker-engine.js';
import { demoBundle } from '../../test/support/runner/demo-bundle.js';
import { seedContainerBuild, seedWorkspace } from '../../test/support/runner/seed.js';
import { createImageStore, ImageTooLarge, imageTagOf } from './image-store.js';

// The image store against the real engine: a bundle that claims another build's tag cannot change
// what that build's copies run, and an image over RUNNER_MAX_IMAGE_BYTES is never loaded.

const config = loadConfig(testEnv() as unknown as Record<string, string>);
let sql: Sql;
let storage: Storage;
let engine: DockerEngine;
const log = createLogger({ name: 'image-store-test', level: 'silent' });
const tags: string[] = [];
const store = (maxImageBytes = config.RUNNER_MAX_IMAGE_BYTES) =>
  createImageStore({ sql, storage, engine, hostImages: engine, log, maxImageBytes });

beforeAll(() => {
  sql = createSql(config.DATABASE_URL, { max: 4 });
  storage = createStorage(config);
  engine = new DockerEngine(dockerFrom(config.DOCKER_HOST));
});
afterAll(async () => {
  for (const tag of tags) await engine.removeImage(tag).catch(() => {});
  await sql.end({ timeout: 2 });
});

describe('build images', () => {
  it("a bundle claiming another build's tag cannot change what that build's copies run", async () => {
    const workspaceId = await seedWorkspace(sql);
    const bundle = await demoBundle();
    const a = await seedContainerBuild(sql, storage, bundle, { workspaceId });
    tags.push(imageTagOf(a.buildId));
    const idA = await store().ensure(a.buildId);

    // B: the same image plus, first, a second manifest spelt `.//manifest.json` naming A's tag and
    // another config. An engine that cleans names and takes the first match reads that one.
    const trick = claimingBundle(await entriesOfBundle(bundle), imageTagOf(a.buildId), './/manifest.json');
    const b = await seedContainerBuild(sql, storage, gzipSync(await tarOf(trick.entries), { level: 1 }), { workspaceId });
    tags.push(imageTagOf(b.buildId));
    await store()
      .ensure(b.buildId)
      .catch(() => {}); // refused or loaded: either way A must stand

    // A runner that starts afresh knows nothing but the records and the engine.
    expect(await store().ensure(a.buildId)).toBe(idA);
    expect(await engine.imageId(imageTagOf(a.buildId))).toBe(idA);
  });

  it('refuses to load an image over RUNNER_MAX_IMAGE_BYTES, before loading anything', async () => {
    const workspaceId = await seedWorkspace(sql);
    const b = await seedContainerBuild(sql, storage, await demoBundle(), { workspaceId });
    tags.push(imageTagOf(b.buildId));
    await expect(store(1024 * 1024).ensure(b.buildId)).rejects.toBeInstanceOf(ImageTooLarge);
    expect(await engine.imageId(imageTagOf(b.buildId))).toBeNull();
  });
});
