import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import type { Socket } from 'node:net';
import type { Platform } from './platform.js';
import type { Jar } from './room.js';

// A viewer's WebSocket to their copy's origin over the platform's own port, framed by hand (text
// frames under 126 bytes are all the tests send): echo, the first text frame, and the close frame.

/** A WebSocket to the copy origin over the platform's port; resolves once upgraded. */
export function copySocket(
  platform: Pick<Platform, 'baseUrl'>,
  host: string,
  jar: Jar,
  path = '/socket',
  extra: Record<string, string> = {},
): Promise<{
  socket: Socket;
  echo(text: string): Promise<string>;
  first: Promise<string>;
  closed: Promise<{ code: number | null; reason: string }>;
}> {
  const base = new URL(platform.baseUrl);
  return new Promise((resolve, reject) => {
    const req = request({
      host: base.hostname,
      port: base.port,
      path,
      headers: {
        ...extra,
        host,
        cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; '),
        connection: 'Upgrade',
        upgrade: 'websocket',
        'sec-websocket-version': '13',
        'sec-websocket-key': randomBytes(16).toString('base64'),
      },
    });
    req.on('response', (res) => reject(new Error(`no upgrade: ${res.statusCode}`)));
    req.on('error', reject);
    // Frames sent with the 101 arrive in `head`, the rest as the socket's data.
    req.on('upgrade', (_res, socket: Socket, head: Buffer) => {
      let buffered = Buffer.from(head);
      let onText: ((t: string) => void) | null = null;
      let gotFirst: (t: string) => void = () => {};
      const first = new Promise<string>((done) => (gotFirst = done));
      let closeFrame: { code: number | null; reason: string } | null = null;
      const closed = new Promise<{ code: number | null; reason: string }>((done) => {
        const read = (chunk: Buffer) => {
          buffered = Buffer.concat([buffered, chunk]);
          while (buffered.length >= 2) {
            const len = buffered[1] & 0x7f;
            if (len > 125 || buffered.length < 2 + len) break;
            const op = buffered[0] & 0x0f;
            const payload = buffered.subarray(2, 2 + len);
            buffered = buffered.subarray(2 + len);
            if (op === 1) {
              gotFirst(payload.toString('utf8'));
              onText?.(payload.toString('utf8'));
            }
            if (op === 8) closeFrame = { code: len >= 2 ? payload.readUInt16BE(0) : null, reason: payload.subarray(2).toString('utf8') };
          }
        };
        socket.on('data', read);
        read(Buffer.alloc(0));
        socket.on('close', () => done(closeFrame ?? { code: null, reason: '' }));
      });
      const echo = (text: string) =>
        new Promise<string>((answer) => {
          onText = answer;
          const mask = randomBytes(4);
          const body = Buffer.from(text).map((b, i) => b ^ mask[i % 4]);
          socket.write(Buffer.concat([Buffer.from([0x81, 0x80 | body.length]), mask, body]));
        });
      resolve({ socket, echo, first, closed });
    });
    req.end();
  });
}
