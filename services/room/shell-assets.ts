import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { roomScript } from './room-scripts.js';

// The shell's scripts (built from shell/*.ts, room-scripts.ts) and stylesheet, read once. They
// change only with a release of the platform, so browsers revalidate them by ETag rather than
// keep them blindly.

const asset = (bytes: Buffer, type: string) => ({
  bytes,
  type,
  etag: `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 22)}"`,
});

export function registerShellAssets(app: FastifyInstance) {
  const assets: Record<string, ReturnType<typeof asset>> = {
    'shell.js': asset(roomScript('shell.js'), 'text/javascript; charset=utf-8'),
    'voice.js': asset(roomScript('voice.js'), 'text/javascript; charset=utf-8'),
    'shell.css': asset(readFileSync(new URL('./shell/shell.css', import.meta.url)), 'text/css; charset=utf-8'),
  };
  app.get('/room/assets/:name', async (req, reply) => {
    const found = assets[(req.params as { name: string }).name];
    if (!found) return reply.status(404).type('text/plain').send('Not found');
    reply.header('etag', found.etag).header('cache-control', 'no-cache').header('x-content-type-options', 'nosniff');
    if (req.headers['if-none-match'] === found.etag) return reply.status(304).send();
    return reply.type(found.type).send(found.bytes);
  });
}
