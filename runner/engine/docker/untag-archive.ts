import { createHash, type Hash } from 'node:crypto';
import { PassThrough, Transform, type Readable } from 'node:stream';
import tar from 'tar-stream';

// A bundle is the builder's `podman save`: its manifest.json names the tags the engine applies on
// load, and a bundle could name any tag on the host, another build's or the base image's. So the
// archive is rewritten on its way into the engine and the engine is never told a name:
// manifest.json loses its RepoTags, the legacy `repositories` file (the same names again) is
// dropped, an OCI index is refused, and the image id is computed from the config's bytes as the
// archive passes. The runner then tags that id itself (image-store.ts).
//
// The bundle worker (workers/bundle-check) checked names already; this is the runner's own line, since
// it cannot lean on a check it cannot see: a name must be plain (one folder level at most, no
// `.`, `..`, empty segment or odd character) and unique ignoring case, as the engine matches
// names only after cleaning them and takes the first. What passes is re-serialised by tar-stream,
// so the engine reads exactly the entries read here.

export class ArchiveRefusal extends Error {}
/** The unpacked archive is over the runner's RUNNER_MAX_IMAGE_BYTES. */
export class ArchiveTooLarge extends ArchiveRefusal {}

const SEGMENT = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,254}$/;

function plainName(name: string, type: string | null | undefined): boolean {
  const trimmed = type === 'directory' && name.endsWith('/') ? name.slice(0, -1) : name;
  const segments = trimmed.split('/');
  return segments.length <= 2 && segments.every((s) => SEGMENT.test(s));
}

export function untagArchive(source: Readable, opts: { maxBytes: number }): { archive: Readable; imageId: Promise<string> } {
  const extract = tar.extract();
  const pack = tar.pack();
  const out = new PassThrough();
  const seen = new Set<string>();
  const digests = new Map<string, Hash>();
  let config: string | null = null;
  let bytes = 0;
  let settle!: { resolve: (id: string) => void; reject: (err: Error) => void };
  const imageId = new Promise<string>((resolve, reject) => {
    settle = { resolve, reject };
  });
  imageId.catch(() => {}); // the caller awaits it after the load; a failure shows there too

  const fail = (err: Error) => {
    settle.reject(err);
    out.destroy(err);
    extract.destroy();
    source.destroy();
  };
  const counter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      bytes += chunk.length;
      if (bytes > opts.maxBytes) {
        fail(new ArchiveTooLarge(`the image archive is over the runner's limit of ${opts.maxBytes} bytes (RUNNER_MAX_IMAGE_BYTES)`));
        return done();
      }
      done(null, chunk);
    },
  });

  extract.on('entry', (header, stream, next) => {
    const name = header.name;
    const key = name.replace(/\/$/, '').toLowerCase();
    if (!plainName(name, header.type))
      return fail(new ArchiveRefusal(`${JSON.stringify(name)}: not a plain name for an image archive entry`));
    if (seen.has(key)) return fail(new ArchiveRefusal(`${JSON.stringify(name)}: named twice in the archive`));
    seen.add(key);
    if (key === 'index.json' || key === 'oci-layout')
      return fail(new ArchiveRefusal('an OCI image layout is not loaded, only a docker-archive'));
    if ((key === 'manifest.json' || key === 'repositories') && name !== key)
      return fail(new ArchiveRefusal(`${JSON.stringify(name)}: must be spelt ${key}`));
    if (name === 'repositories') {
      stream.on('end', () => next());
      stream.resume();
      return;
    }
    if (name === 'manifest.json') {
      const chunks: Buffer[] = [];
      stream.on('data', (c: unknown) => chunks.push(c as Buffer));
      stream.on('end', () => {
        let entries: { Config?: unknown; RepoTags?: string[] | null }[];
        try {
          entries = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {
          return fail(new ArchiveRefusal('manifest.json is not JSON'));
        }
        if (!Array.isArray(entries) || entries.length !== 1 || typeof entries[0]?.Config !== 'string')
          return fail(new ArchiveRefusal('the bundle must hold exactly one image'));
        config = entries[0].Config as string;
        entries[0].RepoTags = null;
        const body = Buffer.from(JSON.stringify(entries));
        pack.entry({ ...header, size: body.length }, body, (err) => (err ? fail(err) : next()));
      });
      return;
    }
    if (header.type === 'file' && !name.includes('/') && name.endsWith('.json')) {
      // A config candidate: its digest is the image id, if the manifest names it.
      const hash = createHash('sha256');
      digests.set(name, hash);
      stream.on('data', (c: unknown) => hash.update(c as Buffer));
    }
    const sink = pack.entry(header, (err) => (err ? fail(err) : next()));
    // A failure tears the pipe down from either end; it is reported once, through fail.
    sink.on('error', () => {});
    stream.on('error', () => {});
    stream.pipe(sink);
  });
  extract.on('finish', () => {
    const hash = config ? digests.get(config) : undefined;
    if (!config) return fail(new ArchiveRefusal('the bundle has no manifest.json'));
    if (!hash) return fail(new ArchiveRefusal(`the bundle lacks its image config ${JSON.stringify(config)}`));
    settle.resolve(`sha256:${hash.digest('hex')}`);
    pack.finalize();
  });
  extract.on('error', fail);
  source.on('error', fail);
  pack.on('error', fail);
  source.pipe(counter).pipe(extract);
  pack.pipe(out);
  // Whoever reads the archive (the engine's client) may have let go of it already; the reason
  // reaches the caller through `imageId` in any case.
  out.on('error', () => {});
  return { archive: out, imageId };
}
