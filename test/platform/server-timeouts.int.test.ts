import net from 'node:net';
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../services/api/app.js';
import { SERVER_TIMEOUTS } from '../../services/core/infra/http/server-timeouts.js';
import { createLogger } from '../../services/core/infra/log.js';
import { buildRoomApp } from '../../services/room/app.js';
import { buildRunner } from '../../runner/app.js';
import { startPlatform, type Platform } from '../support/platform.js';

// The api, the room and the runner keep an idle keep-alive connection longer than a load
// balancer in front of them does (services/core/infra/http/server-timeouts.ts; issue 44 item 3), with
// their headers and request timeouts set, whether fastify made the server or a serverFactory did.

let platform: Platform;
beforeAll(async () => {
  platform = await startPlatform();
});
afterAll(async () => platform?.close());

const timeoutsOf = (server: Server) => ({
  keepAliveTimeout: server.keepAliveTimeout,
  headersTimeout: server.headersTimeout,
  requestTimeout: server.requestTimeout,
});

/** Two requests on one connection with `idleMs` between them: the answers' status lines, or 'closed'. */
function twoRequestsOnOneConnection(port: number, idleMs: number): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const lines: string[] = [];
    let text = '';
    const ask = () => socket.write('GET /healthz HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n');
    socket.on('connect', ask);
    socket.on('error', reject);
    socket.on('data', (chunk) => {
      text += chunk;
      for (const status of text.match(/HTTP\/1\.1 \d{3}/g) ?? []) lines.push(status);
      text = '';
      if (lines.length === 1) setTimeout(() => (socket.destroyed ? undefined : ask()), idleMs);
      if (lines.length === 2) {
        socket.destroy();
        resolve(lines);
      }
    });
    socket.on('close', () => resolve([...lines, 'closed']));
  });
}

describe('the HTTP servers behind a load balancer', () => {
  it('are set as the helper says on the api, the room and the runner', async () => {
    expect(SERVER_TIMEOUTS.keepAliveTimeout).toBeGreaterThanOrEqual(65_000);
    const api = await buildApp({ ...platform.deps });
    const room = await buildRoomApp({ ...platform.deps });
    const runner = await buildRunner({ engine: { ping: async () => {} }, log: createLogger({ name: 'runner-test', level: 'silent' }) });
    try {
      for (const app of [api, room, runner]) expect(timeoutsOf(app.server)).toEqual(SERVER_TIMEOUTS);
    } finally {
      await Promise.all([api.close(), room.close(), runner.close()]);
    }
  });

  it("keeps a connection idle past Node's 5 s default open for the next request", async () => {
    // The platform's api with the room alongside (its serverFactory): the way tests and development run.
    const answers = await twoRequestsOnOneConnection(Number(new URL(platform.baseUrl).port), 6_000);
    expect(answers.slice(0, 2)).toEqual(['HTTP/1.1 200', 'HTTP/1.1 200']);
  });
});
