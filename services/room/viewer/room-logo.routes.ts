import type { FastifyInstance } from 'fastify';
import type { Sql } from '../../core/infra/db.js';
import { sendStoredImage } from '../../core/infra/http/send-stored-image.js';
import type { Storage } from '../../core/infra/storage.js';
import { workspaceLook } from '../../data/brand-look.js';
import { cookieSession } from './shell-guard.js';

// The brand's logo in the room. A viewer has no api session, so the room serves the logo of its
// own session's workspace at its own address (the api's /api/workspaces/:id/logo is for
// members), and only while the plan shows the brand: the same bytes and hash ETag as the api's.

export function registerRoomLogo(app: FastifyInstance, deps: { sql: Sql; storage: Storage }) {
  app.get('/room/:sessionId/logo', async (req, reply) => {
    const session = await cookieSession(deps.sql, req);
    const look = session ? await workspaceLook(deps.sql, session.workspaceId) : null;
    const logo = look?.planAllows ? look.brand.logo : null;
    // Private: the address names a viewer's session; a viewer's browser keeps it and revalidates.
    const sent = logo && (await sendStoredImage(req, reply, deps.storage, logo, 'private, no-cache'));
    return sent ?? reply.status(404).type('text/plain').send('Not found');
  });
}
