import { PassThrough, type Readable } from 'node:stream';
import tar from 'tar-stream';

// A bundle is the builder's `docker save` / `podman save`: its manifest.json names the tags the
// engine applies on load. Left alone, a bundle could name any tag on the host, another build's
// or the base image's, and move it to its own image. So the archive is rewritten on its way into
// the engine: manifest.json gets exactly the runner's tag, the legacy `repositories` file (the
// same names again) is dropped, and every other entry passes through untouched, streamed.

export class ArchiveRefusal extends Error {}

export function retagArchive(source: Readable, tag: string): Readable {
  const extract = tar.extract();
  const pack = tar.pack();
  const out = new PassThrough();
  let manifests = 0;
  const fail = (err: Error) => {
    out.destroy(err);
    extract.destroy();
    source.destroy();
  };
  extract.on('entry', (header, stream, next) => {
    const name = header.name.replace(/^\.\//, '');
    if (name === 'repositories') {
      stream.on('end', () => next());
      stream.resume();
      return;
    }
    if (name === 'manifest.json') {
      const chunks: Buffer[] = [];
      stream.on('data', (c: unknown) => chunks.push(c as Buffer));
      stream.on('end', () => {
        let entries: { RepoTags?: string[] | null }[];
        try {
          entries = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {
          return fail(new ArchiveRefusal('manifest.json is not JSON'));
        }
        if (!Array.isArray(entries) || entries.length !== 1) return fail(new ArchiveRefusal('the bundle must hold exactly one image'));
        manifests++;
        entries[0].RepoTags = [tag];
        const body = Buffer.from(JSON.stringify(entries));
        pack.entry({ ...header, size: body.length }, body, (err) => (err ? fail(err) : next()));
      });
      return;
    }
    stream.pipe(pack.entry(header, (err) => (err ? fail(err) : next())));
  });
  extract.on('finish', () => {
    if (manifests !== 1) return fail(new ArchiveRefusal('the bundle has no manifest.json'));
    pack.finalize();
  });
  extract.on('error', fail);
  source.on('error', fail);
  pack.on('error', fail);
  source.pipe(extract);
  pack.pipe(out);
  return out;
}
