import { createGunzip } from 'node:zlib';
import { ImageMissing, ImageTooLarge, type BuildImage } from '../copy-engine.js';
import type { DockerApi } from './docker-api.js';
import { ArchiveRefusal, untagArchive } from './untag-archive.js';

// A build's image into the engine: when the engine already holds the image its check recorded,
// a tag is all; otherwise the bundle is streamed in (gunzip → untag → POST /images/load), its id
// read from the bytes and checked against the record, and the image tagged by its build. Copies
// are created from the id, never the tag: no name a bundle chose, and no tag another bundle
// moved, can change what a build's copies run.

const sameId = (a: string, b: string) => a.replace(/^sha256:/, '') === b.replace(/^sha256:/, '');

export async function prepareImage(api: DockerApi, build: BuildImage): Promise<string> {
  const { buildId, recordedId } = build;
  if (recordedId && (await api.imageId(recordedId))) {
    await api.tagImage(recordedId, build.tag);
    return recordedId;
  }
  const object = await build.bundle();
  let tarStream = object.body;
  if (object.gzipped !== false) {
    const gunzip = createGunzip();
    gunzip.on('error', (err) => object.body.destroy(err));
    tarStream = object.body.pipe(gunzip);
  }
  const { archive, imageId } = untagArchive(tarStream, { maxBytes: build.maxBytes });
  try {
    await api.loadImage(archive);
  } catch (err) {
    // A refusal of the archive on its way in says more than the engine's broken stream.
    const why = await imageId.then(
      () => null,
      (e: Error) => e,
    );
    if (why instanceof ArchiveRefusal)
      throw why.constructor.name === 'ArchiveTooLarge'
        ? new ImageTooLarge(`build ${buildId}: ${why.message}`)
        : new ImageMissing(`build ${buildId}: ${why.message}`);
    throw err;
  }
  const id = await imageId.catch((e: Error) => {
    throw new ImageMissing(`build ${buildId}: ${e.message}`);
  });
  if (recordedId && !sameId(id, recordedId)) throw new ImageMissing(`the bundle of build ${buildId} is not the image its check recorded`);
  if (!(await api.imageId(id))) throw new ImageMissing(`the engine did not keep the image of build ${buildId}`);
  await api.tagImage(id, build.tag);
  return recordedId ?? id;
}
