import { uploadKey } from '../../services/data/uploads.sql.js';
import { buildImageOf, buildsToKeep } from '../../services/data/build-images.sql.js';
import type { Sql } from '../../services/core/infra/db.js';
import type { Logger } from '../../services/core/infra/log.js';
import type { Storage } from '../../services/core/infra/storage.js';
import { ImageMissing, ImageTooLarge, type CopyEngine } from '../engine/copy-engine.js';
import type { HostImages } from '../engine/host-engine.js';
import { registryArchive } from './registry-archive.js';
import { repositoryOf } from '../../services/core/infra/registry/registry-token.js';
import type { Registry } from '../../services/core/infra/registry/registry-pull.js';
import { buildIdOfTag, RECENT_BUILD_DAYS, tagsToRemove, type TaggedImage } from './image-rule.js';

// Images of container builds. A build's image is prepared in the engine (engine.prepare: for
// Docker, its bundle streamed from the object store and loaded) when the build goes live, before
// any viewer waits on it, and named by its build id. Concurrent asks for one build share one
// prepare (single flight). Copies are created from the image id the bundle check recorded, never
// from a name.

/** The image errors are the engine's (a build with no image it can run); named here too, where callers look for them. */
export { ImageTooLarge } from '../engine/copy-engine.js';

export interface ImageStore {
  /** The image id of the build, loading it first when the engine lacks it. */
  ensure(buildId: string): Promise<string>;
  /** Whether the engine holds the build's image now (no load). */
  has(buildId: string): Promise<boolean>;
  /** Drops what is remembered of the build's image (the engine lost it): the next ensure looks again. */
  forget(buildId: string): void;
  /** Builds whose image this store loaded or found (tests remove their tags afterwards). */
  loaded(): string[];
  /** Removes build images no live, recent or running build needs (images/image-rule.ts), from the host's images. Returns the tags removed. */
  collect(): Promise<string[]>;
}

/** The tag of a build's image: the only name `collect` ever removes (images/image-rule.ts). */
export const imageTagOf = (buildId: string) => `localhost/build-${buildId}:latest`;

export function createImageStore(deps: {
  sql: Sql;
  storage: Storage;
  engine: CopyEngine;
  /** The host's images (the Docker engine); null where nodes keep and collect their own (Kubernetes). */
  hostImages: HostImages | null;
  log: Logger;
  maxImageBytes: number;
  /** The registry pushed builds are pulled from; null when the platform has none. */
  registry?: Registry | null;
}): ImageStore {
  const inFlight = new Map<string, Promise<string>>();
  const known = new Map<string, string>();
  const tagOf = imageTagOf;

  async function load(buildId: string): Promise<string> {
    const build = await buildImageOf(deps.sql, buildId);
    if (!build || build.kind !== 'container') throw new ImageMissing(`build ${buildId} is not a container build`);
    const started = Date.now();
    let bytes: number | null = null;
    // Builds checked before image ids were recorded have none: their image is loaded again once
    // per runner process, and its id read from the bytes.
    const id = await deps.engine.prepare({
      buildId,
      tag: tagOf(buildId),
      recordedId: build.image?.id ?? null,
      maxBytes: deps.maxImageBytes,
      ...(build.imageManifest
        ? { pushed: { repository: repositoryOf(build.workspaceId, build.projectId), digest: build.imageManifest } }
        : {}),
      async bundle() {
        const archiveBytes = build.image?.archiveBytes;
        if (archiveBytes !== undefined && archiveBytes > deps.maxImageBytes) {
          throw new ImageTooLarge(
            `the image of build ${buildId} unpacks to ${archiveBytes} bytes, over this host's limit of ${deps.maxImageBytes} (RUNNER_MAX_IMAGE_BYTES)`,
          );
        }
        if (build.imageManifest) {
          // A pushed image: pulled by its manifest digest from the project's repository.
          if (!deps.registry) throw new ImageMissing(`build ${buildId} was pushed to a registry this runner is not given (REGISTRY_URL)`);
          const pulled = await registryArchive(deps.registry, repositoryOf(build.workspaceId, build.projectId), build.imageManifest);
          bytes = pulled.size;
          return { ...pulled, gzipped: false };
        }
        const object = build.uploadId ? await deps.storage.get(uploadKey(build.uploadId)) : null;
        if (!object) throw new ImageMissing(`the bundle of build ${buildId} is gone from storage`);
        bytes = object.size;
        return object;
      },
    });
    if (bytes !== null) deps.log.info({ buildId, ms: Date.now() - started, bytes }, 'image loaded');
    return id;
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
      return Boolean(known.get(buildId) ?? (await deps.hostImages?.imageId(tagOf(buildId))));
    },
    async collect() {
      if (!deps.hostImages) return [];
      const host = deps.hostImages;
      const images = taggedBuildImages(await host.listImages());
      if (!images.length) return [];
      const ids = [...new Set(images.map((i) => i.buildId))];
      const rows = await buildsToKeep(deps.sql, ids, RECENT_BUILD_DAYS);
      const removed: string[] = [];
      for (const tag of tagsToRemove(images, new Map(rows.map((r) => [r.id, { keep: r.keep }])))) {
        // By tag: an image that carries other names too only loses this one.
        if (await host.removeImage(tag)) removed.push(tag);
        known.delete(buildIdOfTag(tag)!);
      }
      if (removed.length) deps.log.info({ removed }, 'unused build images removed');
      return removed;
    },
  };
}

/** The host's images by each tag that names a build (images/image-rule.ts). */
function taggedBuildImages(images: { tags: string[]; created: number }[]): TaggedImage[] {
  return images.flatMap((image) =>
    image.tags.flatMap((tag) => {
      const buildId = buildIdOfTag(tag);
      return buildId ? [{ tag, buildId, created: image.created }] : [];
    }),
  );
}
