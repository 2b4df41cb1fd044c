import { buffer } from 'node:stream/consumers';
import { promisify } from 'node:util';
import { HeadTagSplicer, withHeadTag, type HtmlHead } from './frame-helper-tag.js';
import { brotliCompress, constants as zlib, gzip } from 'node:zlib';
import { pipeline, Transform, type Readable } from 'node:stream';
import { LRUCache } from 'lru-cache';
import { contentTypeOf } from '../../core/rules/content-type.js';
import type { Storage } from '../../core/infra/storage.js';
import { buildFilesPrefix } from '../../data/builds.sql.js';

// A static build's files, from the object store, kept close. Builds never change once made, so
// what the store says of a file (its size and ETag, or that there is none) and the bytes of small
// files are cached without expiry (LRU), along with their compressed forms; large files stream
// from the store, ranges included.
//
// Nothing here waits on work that grows with the build: each path is looked up on its own (one
// HEAD, shared by the viewers asking at once). The first version listed the build's whole prefix
// on its first request, one store round trip per thousand files, which the first request and
// every request arriving with it waited for (the trial's first `index.html` of a new build: 36.5 s
// under load; issue 29).

type IndexEntry = { size: number; etag: string };

export type Found =
  /** `whole`: sent whole, never as a range (a document the room added its helper to, `tagged`). */
  | { kind: 'file'; path: string; entry: IndexEntry; type: string; whole?: true; tagged?: true }
  | { kind: 'folder'; location: string }
  | { kind: 'missing' };

export type Body =
  | { kind: 'buffer'; bytes: Buffer; encoding: 'br' | 'gzip' | null }
  /** `size` null: a document with the helper streamed in, its length not known ahead. */
  | { kind: 'stream'; stream: Readable; size: number | null; range: { start: number; end: number } | null };

const compressible = /^(text\/|application\/(javascript|json|xml|manifest\+json|wasm)|image\/svg\+xml)/;
const brotli = promisify(brotliCompress);
const gzipped = promisify(gzip);

export function createStaticFiles(storage: Storage, opts: { cacheBytes?: number; cachedFileBytes?: number; htmlHead?: HtmlHead } = {}) {
  const cachedFileBytes = opts.cachedFileBytes ?? 2 * 1024 * 1024;
  // HTML documents loaded as documents (a frame, a window) get the helper: held when small,
  // streamed with it when large. An app's own fetch of an HTML file gets the file as it is.
  const takesHead = (type: string, document: boolean) => Boolean(opts.htmlHead) && document && /^text\/html/.test(type);
  // Keyed by the file's object key; `false` is a path the build does not have.
  const entries = new LRUCache<string, IndexEntry | false>({
    max: 200_000,
    fetchMethod: async (key) => {
      const head = await storage.head(key);
      return head ? { size: head.size, etag: head.etag ?? `"${head.size}"` } : false;
    },
  });
  const bytes = new LRUCache<string, Buffer>({
    maxSize: opts.cacheBytes ?? 256 * 1024 * 1024,
    sizeCalculation: (b) => Math.max(1, b.length),
  });

  /** What the store holds at `file` in the build, if anything. */
  async function entryOf(buildId: string, file: string): Promise<IndexEntry | undefined> {
    return (await entries.fetch(buildFilesPrefix(buildId) + file)) || undefined;
  }

  /** What a URL path names in the build: a file, a folder (served by its index.html), or nothing. */
  async function find(buildId: string, urlPath: string, ask: { document: boolean } = { document: true }): Promise<Found> {
    let path: string;
    try {
      path = decodeURIComponent(urlPath);
    } catch {
      return { kind: 'missing' };
    }
    if (path.includes('\0') || path.split('/').some((s) => s === '..' || s === '.')) return { kind: 'missing' };
    const relative = path.replace(/^\/+/, '');
    const asFile = relative === '' || relative.endsWith('/') ? `${relative}index.html` : relative;
    const entry = await entryOf(buildId, asFile);
    if (entry) {
      const type = contentTypeOf(asFile);
      // A document with the helper in it is not the stored file: its own ETag, and no ranges.
      if (takesHead(type, ask.document))
        return {
          kind: 'file',
          path: asFile,
          entry: { ...entry, etag: entry.etag.replace(/"?$/, '-h2"') },
          type,
          whole: true,
          tagged: true,
        };
      return { kind: 'file', path: asFile, entry, type };
    }
    // A folder asked for without its slash is sent to it, so the page's relative links resolve.
    if (!relative.endsWith('/') && (await entryOf(buildId, `${relative}/index.html`))) return { kind: 'folder', location: `${urlPath}/` };
    return { kind: 'missing' };
  }

  async function cachedBytes(buildId: string, path: string, tagged: boolean): Promise<Buffer> {
    const key = `${buildId}/${path}${tagged ? '#h' : ''}`;
    const hit = bytes.get(key);
    if (hit) return hit;
    const object = await storage.get(buildFilesPrefix(buildId) + path);
    if (!object) throw new Error(`build file vanished from the store: ${key}`);
    const stored = await buffer(object.body);
    const whole = tagged && opts.htmlHead ? withHeadTag(stored, opts.htmlHead()) : stored;
    bytes.set(key, whole);
    return whole;
  }

  async function compressed(buildId: string, path: string, tagged: boolean, encoding: 'br' | 'gzip'): Promise<Buffer> {
    const key = `${buildId}/${path}${tagged ? '#h' : ''}#${encoding}`;
    const hit = bytes.get(key);
    if (hit) return hit;
    const plain = await cachedBytes(buildId, path, tagged);
    // Quality 5 brotli: within a few percent of the best size at a fraction of the time, once per file.
    const packed =
      encoding === 'br'
        ? await brotli(plain, { params: { [zlib.BROTLI_PARAM_QUALITY]: 5, [zlib.BROTLI_PARAM_SIZE_HINT]: plain.length } })
        : await gzipped(plain, { level: 6 });
    bytes.set(key, packed);
    return packed;
  }

  /**
   * The bytes to send: compressed when the type gains from it and the client takes it (never for
   * a range), a range when one satisfiable range is asked, else the whole file.
   */
  async function body(
    buildId: string,
    file: Extract<Found, { kind: 'file' }>,
    ask: { acceptEncoding?: string; range: { start: number; end: number } | null },
  ): Promise<Body> {
    const small = file.entry.size <= cachedFileBytes;
    const encoding = !ask.range && file.entry.size > 512 && compressible.test(file.type) ? pickEncoding(ask.acceptEncoding) : null;
    const tagged = Boolean(file.tagged);
    if (small) {
      if (encoding) return { kind: 'buffer', bytes: await compressed(buildId, file.path, tagged, encoding), encoding };
      const whole = await cachedBytes(buildId, file.path, tagged);
      return { kind: 'buffer', bytes: ask.range ? whole.subarray(ask.range.start, ask.range.end + 1) : whole, encoding: null };
    }
    const range = ask.range ? `bytes=${ask.range.start}-${ask.range.end}` : undefined;
    const object = await storage.get(buildFilesPrefix(buildId) + file.path, range);
    if (!object) throw new Error(`build file vanished from the store: ${buildId}/${file.path}`);
    if (tagged && opts.htmlHead)
      return { kind: 'stream', stream: pipeline(object.body, headTagged(opts.htmlHead()), () => {}), size: null, range: null };
    return { kind: 'stream', stream: object.body, size: object.size, range: ask.range };
  }

  return { find, body };
}

export type StaticFiles = ReturnType<typeof createStaticFiles>;

/** A large document streamed with the helper's tag spliced in, held only until its place is found. */
function headTagged(tag: string): Transform {
  const splicer = new HeadTagSplicer(tag);
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      for (const piece of splicer.push(chunk)) this.push(piece);
      done();
    },
    flush(done) {
      for (const piece of splicer.end()) this.push(piece);
      done();
    },
  });
}

function pickEncoding(accept: string | undefined): 'br' | 'gzip' | null {
  if (!accept) return null;
  const offered = accept
    .toLowerCase()
    .split(',')
    .map((s) => s.trim().split(';'));
  const takes = (name: string) => offered.some(([n, q]) => n === name && !/q=0(\.0+)?$/.test(q ?? ''));
  return takes('br') ? 'br' : takes('gzip') ? 'gzip' : null;
}

/**
 * One range of `bytes=start-end` / `start-` / `-suffix`. Null when there is no usable single range
 * (the whole file is sent), 'unsatisfiable' when it starts past the end.
 */
export function parseRange(header: string | undefined, size: number): { start: number; end: number } | null | 'unsatisfiable' {
  if (!header) return null;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return null;
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (suffix === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(m[1]);
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (start >= size) return 'unsatisfiable';
  if (end < start) return null;
  return { start, end };
}
