import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { Writable } from 'node:stream';
import { Pool } from 'undici';
import { HeadTagSplicer, isDocumentRequest, type PageHead } from '../content/frame-helper-tag.js';

/** Set by the data plane on an answer of its own (infra/dataplane/haproxy.cfg.tmpl): no copy answered. */
export const dataplaneErrorHeader = 'x-pp-dataplane-error';

/** The data plane's 504 is a copy too slow to answer; its 502 and 503, one that did not answer. */
const dataplaneError = (status: number) =>
  Object.assign(new Error(`the data plane answered ${status}`), { code: status === 504 ? 'UND_ERR_HEADERS_TIMEOUT' : 'ECONNRESET' });

// HTTP requests from a viewer to their copy, over one pooled keep-alive connection set per copy
// (undici's Pool: its HTTP/1.1 client parses and writes far less per request than node:http's
// client under http-proxy-3, which cost four times the requests per second here; see
// docs/benchmarks.md). Bodies stream both ways and are never read. WebSockets stay with
// http-proxy-3 (copy-proxy.ts): an upgrade is one long connection, where per-request cost is moot.

export interface ForwardTarget {
  host: string;
  port: number;
}

export interface ForwardOptions<T extends ForwardTarget = ForwardTarget> {
  /** Time the copy has to start answering (ms). */
  headersTimeoutMs: number;
  /** Time a pooled connection to a copy may sit idle before it is closed (ms). */
  idleSocketMs: number;
  /** Connections per copy at most (32): a browser opens six per origin, but a page may also hold long polls and streams. */
  connectionsPerCopy?: number;
  /** The request's headers as the copy should see them (cookies the room keeps, forwarding headers). */
  requestHeaders(req: IncomingMessage, target: T): Record<string, string | string[]>;
  /** The copy's answer headers as the viewer should see them (the room owns framing and cookie scope). */
  responseHeaders(headers: IncomingHttpHeaders, target: T): Record<string, string | string[]>;
  /** Put into the HTML documents a page load gets (the room's frame helper); none when absent. */
  htmlHead?: PageHead<T>;
}

/**
 * Where an HTML answer goes instead of the viewer: passed on with the tag spliced in where the
 * HTML parser opens the head, held only until that place is found (HeadTagSplicer: a bounded
 * look at the document's start), then streamed through, whatever the page's size.
 */
function htmlWithTag(res: ServerResponse, status: number, headers: Record<string, string | string[]>, tag: string): Writable {
  const splicer = new HeadTagSplicer(tag);
  let started = false;
  const send = (pieces: Buffer[], done: () => void) => {
    if (!pieces.length) return done();
    if (!started) {
      started = true;
      res.writeHead(status, headers);
    }
    let ok = true;
    for (const piece of pieces) ok = res.write(piece) && ok;
    if (ok) done();
    else res.once('drain', () => done());
  };
  return new Writable({
    write(chunk: Buffer, _enc, done) {
      send(splicer.push(chunk), done);
    },
    final(done) {
      send(splicer.end(), () => res.end(done));
    },
    destroy(err, done) {
      if (err) res.destroy();
      done(err);
    },
  });
}

// Hop-by-hop headers (RFC 9110, 7.6.1) belong to one connection, never forwarded.
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'proxy-authorization',
  'proxy-authenticate',
]);

/** `headers` without hop-by-hop headers, nor those the Connection header names. */
export function endToEnd<T extends string | string[] | undefined>(headers: Record<string, T>): Record<string, Exclude<T, undefined>> {
  const named = String(headers.connection ?? '')
    .toLowerCase()
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const out: Record<string, Exclude<T, undefined>> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP_BY_HOP.has(name) || named.includes(name)) continue;
    out[name] = value as Exclude<T, undefined>;
  }
  return out;
}

export function createCopyForward<T extends ForwardTarget = ForwardTarget>(opts: ForwardOptions<T>) {
  const pools = new Map<string, Pool>();

  function poolOf(t: ForwardTarget): Pool {
    const key = `${t.host}:${t.port}`;
    let pool = pools.get(key);
    if (!pool) {
      pool = new Pool(`http://${key}`, {
        connections: opts.connectionsPerCopy ?? 32,
        keepAliveTimeout: opts.idleSocketMs,
        keepAliveMaxTimeout: opts.idleSocketMs,
        headersTimeout: opts.headersTimeoutMs,
        // A long download or a server-sent event stream may pause for as long as it likes.
        bodyTimeout: 0,
      });
      pools.set(key, pool);
    }
    return pool;
  }

  return {
    /** Forwards one request; `onError` gets what went wrong before the answer began. */
    web(req: IncomingMessage, res: ServerResponse, target: T, onError: (err: Error & { code?: string }) => void) {
      const bodyless =
        req.method === 'GET' ||
        req.method === 'HEAD' ||
        (req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined);
      // A page load (a frame or a link opening a document) may get the helper in its HTML: asked
      // uncompressed, so the room can read it. Fetches (an app's own HTML fragments too) and
      // assets pass untouched.
      const page = opts.htmlHead && req.method === 'GET' && isDocumentRequest(req.headers);
      const headers = opts.requestHeaders(req, target);
      if (page) headers['accept-encoding'] = 'identity';
      const aborted = new AbortController();
      // The viewer went away: stop asking the copy (and free the pooled connection).
      res.once('close', () => {
        if (!res.writableFinished) aborted.abort();
      });
      poolOf(target).stream(
        {
          path: req.url ?? '/',
          method: req.method as 'GET',
          headers,
          body: bodyless ? null : req,
          signal: aborted.signal,
        },
        ({ statusCode, headers: answer }) => {
          // No copy answered: the data plane says so, and the room answers in its own words.
          if (answer[dataplaneErrorHeader] !== undefined) {
            onError(dataplaneError(statusCode));
            return new Writable({ write: (_chunk, _encoding, done) => done() });
          }
          // As node:http gives them: Set-Cookie always a list (undici gives one cookie as a string).
          const cookies = answer['set-cookie'];
          if (typeof cookies === 'string') answer['set-cookie'] = [cookies];
          const out = opts.responseHeaders(answer as IncomingHttpHeaders, target);
          const html = /^text\/html/i.test(String(answer['content-type'] ?? '')) && !answer['content-encoding'];
          const tag =
            page && html && statusCode !== 204 && statusCode !== 304 ? opts.htmlHead!({ status: statusCode, headers: out, target }) : '';
          if (tag) {
            // Another body than the copy's: its length and validator do not hold for it.
            delete out['content-length'];
            delete out.etag;
            return htmlWithTag(res, statusCode, out, tag);
          }
          res.writeHead(statusCode, out);
          return res;
        },
        (err) => {
          if (!err || aborted.signal.aborted) return;
          if (res.headersSent) return void res.destroy();
          onError(err as Error & { code?: string });
        },
      );
    },

    /** Closes the pooled connections to one copy (it went away), or to all (shutdown). */
    close(target?: ForwardTarget) {
      const keys = target ? [`${target.host}:${target.port}`] : [...pools.keys()];
      for (const key of keys) {
        pools
          .get(key)
          ?.destroy()
          .catch(() => {});
        pools.delete(key);
      }
    },
  };
}
