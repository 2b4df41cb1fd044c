import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';

// The shell's script and stylesheet, read once. They change only with a release of the platform,
// so browsers revalidate them by ETag rather than keep them blindly.

const asset = (name: string, type: string) => {
  const bytes = readFileSync(new URL(`./shell/${name}`, import.meta.url));
  return { bytes, type, etag: `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 22)}"` };
};

export function registerShellAssets(app: FastifyInstance) {
  const assets: Record<string, ReturnType<typeof asset>> = {
    'shell.js': asset('shell.js', 'text/javascript; charset=utf-8'),
    'voice.js': asset('voice.js', 'text/javascript; charset=utf-8'),
    'shell.css': asset('shell.css', 'text/css; charset=utf-8'),
  };
  app.get('/room/assets/:name', async (req, reply) => {
    const found = assets[(req.params as { name: string }).name];
    if (!found) return reply.status(404).type('text/plain').send('Not found');
    reply.header('etag', found.etag).header('cache-control', 'no-cache').header('x-content-type-options', 'nosniff');
    if (req.headers['if-none-match'] === found.etag) return reply.status(304).send();
    return reply.type(found.type).send(found.bytes);
  });
}
