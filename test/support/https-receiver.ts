import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import type { IncomingHttpHeaders } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

// A webhook receiver on loopback for tests (issue 34): a real HTTPS server with a self-signed
// certificate made by openssl at start, for `localhost`, 127.0.0.1 and ::1. Deliveries trust it
// only through WEBHOOKS_EXTRA_CA_FILE = `caFile`. Each path answers as the test says, hit by hit,
// and every request is kept.

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/** How to answer a path's n-th request (0-based): a status, an optional wait first, extra headers and body. */
export type Answer = { status: number; delayMs?: number; headers?: Record<string, string>; body?: string };

export interface HttpsReceiver {
  /** https://127.0.0.1:<port><path> */
  url(path: string): string;
  port: number;
  /** The certificate, to trust: the CA file of the deliveries. */
  caFile: string;
  answer(path: string, plan: (n: number) => Answer): void;
  received(path: string): Received[];
  close(): Promise<void>;
}

const run = promisify(execFile);

export async function startHttpsReceiver(): Promise<HttpsReceiver> {
  const dir = await mkdtemp(join(tmpdir(), 'https-receiver-'));
  const keyFile = join(dir, 'key.pem');
  const caFile = join(dir, 'cert.pem');
  await run('openssl', [
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-keyout',
    keyFile,
    '-out',
    caFile,
    '-days',
    '2',
    '-subj',
    '/CN=localhost',
    '-addext',
    'subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1',
  ]);
  const plans = new Map<string, (n: number) => Answer>();
  const hits = new Map<string, Received[]>();
  const server = createServer({ key: await readFile(keyFile), cert: await readFile(caFile) }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'https://x').pathname;
      const list = hits.get(path) ?? [];
      list.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      hits.set(path, list);
      const a: Answer = (plans.get(path) ?? (() => ({ status: 200 })))(list.length - 1);
      const send = () => {
        if (res.destroyed) return;
        res.writeHead(a.status, { 'content-type': 'text/plain', ...a.headers });
        res.end(a.body ?? `answered ${a.status}`);
      };
      if (a.delayMs) setTimeout(send, a.delayMs).unref();
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    caFile,
    url: (path) => `https://127.0.0.1:${port}${path}`,
    answer: (path, plan) => void plans.set(path, plan),
    received: (path) => hits.get(path) ?? [],
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(dir, { recursive: true, force: true });
    },
  };
}
