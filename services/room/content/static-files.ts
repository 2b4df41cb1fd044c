import { buffer } from 'node:stream/consumers';
import { promisify } from 'node:util';
import { withHeadTag, type HtmlHead } from './frame-helper-tag.js';
import { brotliCompress, constants as zlib, gzip } from 'node:zlib';
import type { Readable } from 'node:stream';
import { LRUCache } from 'lru-cache';
import { contentTypeOf } from '../../core/content-type.js';
import type { Storage } from '../../core/storage.js';
import { buildFilesPrefix } from '../../data/builds.sql.js';

// A static build's files, from the object store, kept close. Builds never change once made, so
// a build's file index and its small files are cached without expiry (LRU by bytes), along with
// their compressed forms; large files stream from the store, ranges included.
//
// The index is a listing of the build's whole prefix: one store round trip per thousand files,
// so a build of tens of thousands of files took seconds to list, and under load the first
// `index.html` of a new build waited 36.5 s for it (issue 29). The first requests of a build no
// longer wait: while the listing runs in the background, each is answered by asking the store
// about its own file (one HEAD), and once the index is in, by the index alone.

type IndexEntry = { size: number; etag: string };
export type FileIndex = Map<string, IndexEntry>;

export type Found =
  /** `whole`: sent whole, never as a range (a document the room added its helper to). */
  | { kind: 'file'; path: string; entry: IndexEntry; type: string; whole?: true }
  | { kind: 'folder'; location: string }
  | { kind: 'missing' };

export type Body =
  | { kind: 'buffer'; bytes: Buffer; encoding: 'br' | 'gzip' | null }
  | { kind: 'stream'; stream: Readable; size: number; range: { start: number; end: number } | null };

const compressible = /^(text\/|application\/(javascript|json|xml|manifest\+json|wasm)|image\/svg\+xml)/;
const brotli = promisify(brotliCompress);
const gzipped = promisify(gzip);

export function createStaticFiles(storage: Storage, opts: { cacheBytes?: number; cachedFileBytes?: number; htmlHead?: HtmlHead } = {}) {
  const cachedFileBytes = opts.cachedFileBytes ?? 2 * 1024 * 1024;
  // HTML documents small enough to be held get the helper; larger ones stream as they are.
  const takesHead = (type: string, size: number) => Boolean(opts.htmlHead) && /^text\/html/.test(type) && size <= cachedFileBytes;
  const indexes = new LRUCache<string, FileIndex>({ max: 500 });
  const loading = new Map<string, Promise<FileIndex>>();
  const bytes = new LRUCache<string, Buffer>({ maxSize: opts.cacheBytes ?? 256 * 1024 * 1024, sizeCalculation: (b) => Math.max(1, b.length) });

  async function indexOf(buildId: string): Promise<FileIndex> {
    const known = indexes.get(buildId);
    if (known) return known;
    // Viewers arriving together share one listing of the build.
    let pending = loading.get(buildId);
    if (!pending) {
      const prefix = buildFilesPrefix(buildId);
      pending = storage.list(prefix).then((objects) => {
        const index: FileIndex = new Map(objects.map((o) => [o.key.slice(prefix.length), { size: o.size, etag: o.etag ?? `"${o.size}"` }]));
        indexes.set(buildId, index);
        return index;
      }).finally(() => loading.delete(buildId));
      loading.set(buildId, pending);
    }
    return pending;
  }

  /** What a URL path names in the build: a file, a folder (served by its index.html), or nothing. */
  async function find(buildId: string, urlPath: string): Promise<Found> {
    let path: string;
    try {
      path = decodeURIComponent(urlPath);
    } catch {
      return { kind: 'missing' };
    }
    if (path.includes('\0') || path.split('/').some((s) => s === '..' || s === '.')) return { kind: 'missing' };
    const relative = path.replace(/^\/+/, '');
    const asFile = relative === '' || relative.endsWith('/') ? `${relative}index.html` : relative;
    const lookup = lookupOf(buildId);
    const entry = await lookup(asFile);
    if (entry) {
      const type = contentTypeOf(asFile);
      // A document with the helper in it is not the stored file: its own ETag, and no ranges.
      if (takesHead(type, entry.size)) return { kind: 'file', path: asFile, entry: { ...entry, etag: entry.etag.replace(/"?$/, '-h1"') }, type, whole: true };
      return { kind: 'file', path: asFile, entry, type };
    }
    // A folder asked for without its slash is sent to it, so the page's relative links resolve.
    if (!relative.endsWith('/') && (await lookup(`${relative}/index.html`))) return { kind: 'folder', location: `${urlPath}/` };
    return { kind: 'missing' };
  }

  /**
   * How a file of the build is looked up now: in its index when the index is in; otherwise by one
   * HEAD of that file, with the listing started (once) in the background for the requests after.
   */
  function lookupOf(buildId: string): (file: string) => Promise<IndexEntry | undefined> {
    const index = indexes.get(buildId);
    if (index) return async (file) => index.get(file);
    // A failed listing is tried again by a later request; this one does not need it.
    indexOf(buildId).catch(() => {});
    const prefix = buildFilesPrefix(buildId);
    return async (file) => {
      const known = indexes.get(buildId);
      if (known) return known.get(file);
      const head = await storage.head(prefix + file);
      return head ? { size: head.size, etag: head.etag ?? `"${head.size}"` } : undefined;
    };
  }

  async function cachedBytes(buildId: string, path: string): Promise<Buffer> {
    const key = `${buildId}/${path}`;
    const hit = bytes.get(key);
    if (hit) return hit;
    const object = await storage.get(buildFilesPrefix(buildId) + path);
    if (!object) throw new Error(`build file vanished from the store: ${key}`);
    const stored = await buffer(object.body);
    const whole = opts.htmlHead && takesHead(contentTypeOf(path), stored.length) ? withHeadTag(stored, opts.htmlHead()) : stored;
    bytes.set(key, whole);
    return whole;
  }

  async function compressed(buildId: string, path: string, encoding: 'br' | 'gzip'): Promise<Buffer> {
    const key = `${buildId}/${path}#${encoding}`;
    const hit = bytes.get(key);
    if (hit) return hit;
    const plain = await cachedBytes(buildId, path);
    // Quality 5 brotli: within a few percent of the best size at a fraction of the time, once per file.
    const packed = encoding === 'br'
      ? await brotli(plain, { params: { [zlib.BROTLI_PARAM_QUALITY]: 5, [zlib.BROTLI_PARAM_SIZE_HINT]: plain.length } })
      : await gzipped(plain, { level: 6 });
    bytes.set(key, packed);
    return packed;
  }

  /**
   * The bytes to send: compressed when the type gains from it and the client takes it (never for
   * a range), a range when one satisfiable range is asked, else the whole file.
   */
  async function body(buildId: string, file: Extract<Found, { kind: 'file' }>, ask: { acceptEncoding?: string; range: { start: number; end: number } | null }): Promise<Body> {
    const small = file.entry.size <= cachedFileBytes;
    const encoding = !ask.range && file.entry.size > 512 && compressible.test(file.type) ? pickEncoding(ask.acceptEncoding) : null;
    if (small) {
      if (encoding) return { kind: 'buffer', bytes: await compressed(buildId, file.path, encoding), encoding };
      const whole = await cachedBytes(buildId, file.path);
      return { kind: 'buffer', bytes: ask.range ? whole.subarray(ask.range.start, ask.range.end + 1) : whole, encoding: null };
    }
    const range = ask.range ? `bytes=${ask.range.start}-${ask.range.end}` : undefined;
    const object = await storage.get(buildFilesPrefix(buildId) + file.path, range);
    if (!object) throw new Error(`build file vanished from the store: ${buildId}/${file.path}`);
    return { kind: 'stream', stream: object.body, size: object.size, range: ask.range };
  }

  return { find, body, indexOf };
}

export type StaticFiles = ReturnType<typeof createStaticFiles>;

function pickEncoding(accept: string | undefined): 'br' | 'gzip' | null {
  if (!accept) return null;
  const offered = accept.toLowerCase().split(',').map((s) => s.trim().split(';'));
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
