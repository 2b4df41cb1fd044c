import { createGunzip } from 'node:zlib';
import { uploadKey } from '../../services/data/uploads.sql.js';
import { buildImageOf, buildsToKeep } from '../../services/data/build-images.sql.js';
import type { Sql } from '../../services/core/db.js';
import type { Logger } from '../../services/core/log.js';
import type { Storage } from '../../services/core/storage.js';
import type { Engine } from '../engine/engine.js';
import { buildIdOfTag, RECENT_BUILD_DAYS, tagsToRemove, type TaggedImage } from './image-rule.js';
import { ArchiveRefusal, untagArchive } from './untag-archive.js';

// Images of container builds. A build's bundle is streamed from the object store into the engine
// (gunzip → untag → POST /images/load) when the build goes live, before any viewer waits on it,
// and the runner tags the image by its build id itself. Concurrent asks for one build share one
// load (single flight). Copies are created from the image id, never the tag, and the id is the
// one the bundle check recorded (the config's digest): no name a bundle chose, and no tag another
// bundle moved, can change what a build's copies run.

export class ImageMissing extends Error {}
/** The build's image is over RUNNER_MAX_IMAGE_BYTES: this host will not load it. */
export class ImageTooLarge extends ImageMissing {}

const sameId = (a: string, b: string) => a.replace(/^sha256:/, '') === b.replace(/^sha256:/, '');

export interface ImageStore {
  /** The image id of the build, loading it first when the engine lacks it. */
  ensure(buildId: string): Promise<string>;
  /** Whether the engine holds the build's image now (no load). */
  has(buildId: string): Promise<boolean>;
  /** Drops what is remembered of the build's image (the engine lost it): the next ensure looks again. */
  forget(buildId: string): void;
  /** Builds whose image this store loaded or found (tests remove their tags afterwards). */
  loaded(): string[];
  /** Removes build images no live, recent or running build needs (images/image-rule.ts). Returns the tags removed. */
  collect(): Promise<string[]>;
}

/** The tag of a build's image: the only name `collect` ever removes (images/image-rule.ts). */
export const imageTagOf = (buildId: string) => `localhost/build-${buildId}:latest`;

export function createImageStore(deps: { sql: Sql; storage: Storage; engine: Engine; log: Logger; maxImageBytes: number }): ImageStore {
  const inFlight = new Map<string, Promise<string>>();
  const known = new Map<string, string>();
  const tagOf = imageTagOf;

  async function load(buildId: string): Promise<string> {
    const build = await buildImageOf(deps.sql, buildId);
    if (!build || build.kind !== 'container') throw new ImageMissing(`build ${buildId} is not a container build`);
    // Builds checked before image ids were recorded have none: their image is loaded again once
    // per runner process, and its id read from the bytes.
    const recorded = build.image?.id ?? null;
    if (recorded && (await deps.engine.imageId(recorded))) {
      await deps.engine.tagImage(recorded, tagOf(buildId));
      return recorded;
    }
    const archiveBytes = build.image?.archiveBytes;
    if (archiveBytes !== undefined && archiveBytes > deps.maxImageBytes) {
      throw new ImageTooLarge(`the image of build ${buildId} unpacks to ${archiveBytes} bytes, over this host's limit of ${deps.maxImageBytes} (RUNNER_MAX_IMAGE_BYTES)`);
    }
    const object = await deps.storage.get(uploadKey(build.uploadId));
    if (!object) throw new ImageMissing(`the bundle of build ${buildId} is gone from storage`);
    const started = Date.now();
    const gunzip = createGunzip();
    gunzip.on('error', (err) => object.body.destroy(err));
    const { archive, imageId } = untagArchive(object.body.pipe(gunzip), { maxBytes: deps.maxImageBytes });
    try {
      await deps.engine.loadImage(archive);
    } catch (err) {
      // A refusal of the archive on its way in says more than the engine's broken stream.
      const why = await imageId.then(() => null, (e: Error) => e);
      if (why instanceof ArchiveRefusal) throw why.constructor.name === 'ArchiveTooLarge' ? new ImageTooLarge(`build ${buildId}: ${why.message}`) : new ImageMissing(`build ${buildId}: ${why.message}`);
      throw err;
    }
    const id = await imageId.catch((e: Error) => {
      throw new ImageMissing(`build ${buildId}: ${e.message}`);
    });
    if (recorded && !sameId(id, recorded)) throw new ImageMissing(`the bundle of build ${buildId} is not the image its check recorded`);
    if (!(await deps.engine.imageId(id))) throw new ImageMissing(`the engine did not keep the image of build ${buildId}`);
    await deps.engine.tagImage(id, tagOf(buildId));
    deps.log.info({ buildId, ms: Date.now() - started, bytes: object.size }, 'image loaded');
    return recorded ?? id;
  }

  return {
    ensure(buildId) {
      const cached = known.get(buildId);
      if (cached) return Promise.resolve(cached);
      let p = inFlight.get(buildId);
      if (!p) {
        p = load(buildId)
          .then((id) => {
            known.set(buildId, id);
            return id;
          })
          .finally(() => inFlight.delete(buildId));
        inFlight.set(buildId, p);
      }
      return p;
    },
    loaded() {
      return [...known.keys()];
    },
    forget(buildId) {
      known.delete(buildId);
    },
    async has(buildId) {
      return Boolean(known.get(buildId) ?? (await deps.engine.imageId(tagOf(buildId))));
    },
    async collect() {
      const images: TaggedImage[] = (await deps.engine.listImages()).flatMap((image) =>
        image.tags.flatMap((tag) => {
          const buildId = buildIdOfTag(tag);
          return buildId ? [{ tag, buildId, created: image.created }] : [];
        }),
      );
      if (!images.length) return [];
      const ids = [...new Set(images.map((i) => i.buildId))];
      const rows = await buildsToKeep(deps.sql, ids, RECENT_BUILD_DAYS);
      const removed: string[] = [];
      for (const tag of tagsToRemove(images, new Map(rows.map((r) => [r.id, { keep: r.keep }])))) {
        // By tag: an image that carries other names too only loses this one.
        if (await deps.engine.removeImage(tag)) removed.push(tag);
        known.delete(buildIdOfTag(tag)!);
      }
      if (removed.length) deps.log.info({ removed }, 'unused build images removed');
      return removed;
    },
  };
}
