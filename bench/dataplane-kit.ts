// The data plane (infra/local/dataplane.mjs) for the runner benches: HAProxy in front of one copy,
// its route set over the admin socket as the runner sets it, and the headers a viewer's browser
// sends on the copy origin (Host, the copy token cookie). And a WebSocket echo rate, raw frames
// over one socket, one message in flight at a time.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDataplane } from '../infra/local/dataplane.mjs';
import { canListen } from '../infra/local/lib.mjs';
import { copyOriginKey } from '../services/core/rules/copy-origin-key.js';
import { copyCookie, copyTokens } from '../services/room/viewer-copies/copy-token.js';
import { dataplaneRoutes } from '../runner/dataplane/routes.js';

export interface BenchDataplane {
  url: string;
  port: number;
  headers: Record<string, string>;
  stop(): Promise<void>;
}

export async function startBenchDataplane(copy: {
  sessionId: string;
  copyId: string;
  target: { host: string; port: number };
}): Promise<BenchDataplane> {
  let port = 21_000 + Math.floor(Math.random() * 1000);
  while (!(await canListen(port))) port++;
  const dir = await mkdtemp(join(tmpdir(), 'dataplane-bench-'));
  const key = randomBytes(32).toString('hex');
  // No room behind it: every request the bench sends carries a valid token and goes to the copy.
  // The limits are on, as shipped (their rules run on every request), but one copy's request rate is
  // the whole bench here: its ceiling is set above what 32 connections at full speed send.
  const dataplane = await startDataplane({
    dir,
    port,
    room: '127.0.0.1:9',
    frameAncestors: 'http://127.0.0.1:8080',
    tokenKey: key,
    limits: { copyRequestsPer10s: 1_000_000_000 },
  });
  await dataplaneRoutes(dataplane).set({ ...copy.target, sessionId: copy.sessionId, copyId: copy.copyId });
  const token = copyTokens(key).sign({ lbl: copyOriginKey(copy.sessionId), sid: copy.sessionId, cid: copy.copyId });
  return {
    url: `http://127.0.0.1:${port}/`,
    port,
    // Capitalised: wrk adds its own Host unless it is given one spelt so.
    headers: { Host: `demo--${copyOriginKey(copy.sessionId)}.rooms.localhost:8080`, Cookie: `${copyCookie}=${token}` },
    stop: async () => {
      await dataplane.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Echoes a small text frame over one WebSocket to `hostPort` for `seconds`; messages a second. */
export async function wsEchoRate(hostPort: string, headers: Record<string, string>, seconds: number): Promise<number> {
  const [host, port] = hostPort.split(':');
  const socket = net.connect(Number(port), host);
  socket.setNoDelay(true);
  const extra = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  const hostHeader = Object.keys(headers).some((h) => h.toLowerCase() === 'host') ? '' : `host: ${hostPort}\r\n`;
  socket.write(
    `GET /echo HTTP/1.1\r\n${hostHeader}${extra}upgrade: websocket\r\nconnection: Upgrade\r\n` +
      `sec-websocket-key: ${randomBytes(16).toString('base64')}\r\nsec-websocket-version: 13\r\n\r\n`,
  );
  const text = Buffer.from('ping');
  const mask = randomBytes(4);
  const frame = Buffer.concat([Buffer.from([0x81, 0x80 | text.length]), mask, text.map((b, i) => b ^ mask[i % 4])]);
  let upgraded = false;
  let count = 0;
  const until = performance.now() + seconds * 1000;
  return new Promise((resolve, reject) => {
    socket.on('error', reject);
    socket.on('data', (chunk) => {
      if (!upgraded) {
        if (!chunk.toString('latin1').startsWith('HTTP/1.1 101'))
          return reject(new Error(`no upgrade: ${chunk.toString('latin1').split('\r\n')[0]}`));
        upgraded = true;
        return void socket.write(frame);
      }
      count++;
      if (performance.now() < until) return void socket.write(frame);
      socket.destroy();
      resolve(count / seconds);
    });
  });
}
