// Which build images in the engine the runner may remove (item 1 of issue 6; the workers' sweep
// leaves the engines to the runners, as only the runner talks to one).
//
// By name only: the runner tags each build's image `localhost/build-<build id>:latest`. Nothing
// else in the engine is ever touched, whatever its name: base images, a builder's own images,
// other software's. Such an image goes when its build is
//   - known to this database, and neither live (the live build of a project not deleted), nor
//     recent (made in the last RECENT_BUILD_DAYS: a rollback stays instant), nor used by a copy
//     that has not ended; or
//   - unknown to this database and older than UNKNOWN_IMAGE_DAYS: its build was purged with its
//     deleted project, or it belongs to another platform sharing the engine (locally, `npm start`
//     and `npm test` share podman's storage), which has then had it for a month.
// The engine refuses to remove an image a container still uses (409); nothing is forced.

export const RECENT_BUILD_DAYS = 7;
export const UNKNOWN_IMAGE_DAYS = 30;

const buildTag = /^localhost\/build-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(?::[\w.-]+)?$/;

/** The build id a tag names, or null when it is not a build image's tag. */
export function buildIdOfTag(tag: string): string | null {
  return buildTag.exec(tag)?.[1] ?? null;
}

export interface TaggedImage {
  tag: string;
  buildId: string;
  /** When the image was made (the engine's `Created`), seconds since the epoch. */
  created: number;
}

/** The tags to remove, given what the database says of each build (`keep`; absent when unknown). */
export function tagsToRemove(images: TaggedImage[], builds: Map<string, { keep: boolean }>, now = Date.now()): string[] {
  const unknownBefore = now / 1000 - UNKNOWN_IMAGE_DAYS * 24 * 3600;
  return images
    .filter(({ buildId, created }) => {
      const build = builds.get(buildId);
      return build ? !build.keep : created < unknownBefore;
    })
    .map(({ tag }) => tag);
}
