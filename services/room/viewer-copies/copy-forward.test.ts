import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCopyForward, endToEnd } from './copy-forward.js';

it('forwards end-to-end headers only: hop-by-hop ones and those Connection names stay behind', () => {
  const headers = {
    host: 'a',
    connection: 'keep-alive, x-secret-hop',
    'keep-alive': 'timeout=5',
    'transfer-encoding': 'chunked',
    upgrade: 'h2c',
    'x-secret-hop': '1',
    'x-kept': '2',
    'set-cookie': ['a=1', 'b=2'],
    gone: undefined,
  };
  expect(endToEnd(headers)).toEqual({ host: 'a', 'x-kept': '2', 'set-cookie': ['a=1', 'b=2'] });
});

describe('the frame helper in the pages a copy answers', () => {
  const tag = '<script src="/__pp/frame-helper.js" data-room="http://room.test"></script>';
  // Node-RED's editor page, grown past any size the room would hold: inline templates that hold
  // whole documents, and the node templates the editor fetches itself as HTML.
  const templates = Array.from(
    { length: 400 },
    (_, i) =>
      `<script type="text/x-red" data-template-name="n${i}"><head><title>${i}</title></head><body>${'x'.repeat(12_000)}</body></script>`,
  ).join('\n');
  const editor = `<!DOCTYPE html>\n<html>\n<head>\n<meta charset="utf-8"><title>Node-RED</title>\n</head>\n<body>\n${templates}\n</body>\n</html>\n`;
  const fragment = `<script type="text/x-red" data-template-name="inject"><div class="form-row"></div></script>\n<script type="text/javascript">RED.nodes.registerType('inject', {});</script>`;
  let copy: Server;
  let front: Server;
  let url: string;
  let forward: ReturnType<typeof createCopyForward>;

  beforeAll(async () => {
    copy = createServer((req, res) => {
      if (req.url === '/nodes') return void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(fragment);
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': String(Buffer.byteLength(editor)) });
      // In pieces, as a server streams a large page.
      const bytes = Buffer.from(editor);
      let at = 0;
      const next = () => {
        if (at >= bytes.length) return void res.end();
        res.write(bytes.subarray(at, (at += 64 * 1024)), next);
      };
      next();
    });
    await new Promise<void>((done) => copy.listen(0, '127.0.0.1', done));
    const target = { host: '127.0.0.1', port: (copy.address() as AddressInfo).port };
    forward = createCopyForward({
      headersTimeoutMs: 5_000,
      idleSocketMs: 5_000,
      requestHeaders: (req) => endToEnd(req.headers) as Record<string, string>,
      responseHeaders: (headers) => endToEnd(headers) as Record<string, string>,
      htmlHead: () => tag,
    });
    front = createServer((req, res) => forward.web(req, res, target, () => res.writeHead(502).end()));
    await new Promise<void>((done) => front.listen(0, '127.0.0.1', done));
    url = `http://127.0.0.1:${(front.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    forward?.close();
    await Promise.all([copy, front].map((s) => s && new Promise((done) => s.close(done))));
  });

  it('puts the tag once, where the parser opens the head, into a large page loaded in a frame', async () => {
    expect(editor.length).toBeGreaterThan(4 * 1024 * 1024);
    const res = await fetch(`${url}/`, { headers: { 'sec-fetch-dest': 'iframe', accept: 'text/html,application/xhtml+xml' } });
    const body = await res.text();
    expect(res.headers.get('content-length')).toBeNull();
    expect(body.split(tag).length - 1).toBe(1);
    expect(body).toBe(editor.replace('<head>', `<head>${tag}`));
  });

  it("leaves the app's own fetch of an HTML fragment as the copy sent it", async () => {
    const res = await fetch(`${url}/nodes`, { headers: { 'sec-fetch-dest': 'empty', accept: 'text/html' } });
    expect(await res.text()).toBe(fragment);
  });
});
