import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../core/infra/config.js';
import type { HandlerGroup } from '../routing/handler.js';
import { listings, listNotices, readNotices, reportProject } from './community.service.js';
import { publicCover } from './covers.service.js';
import { sendStoredImage } from '../../core/infra/http/send-stored-image.js';
import { notFound } from '../../core/rules/errors.js';
import { publicListings } from '../../data/cards.sql.js';
import { createCommunityPass } from '../../data/preview-passes.sql.js';

/**
 * The open listings may be read by the service's own website from a browser (CORS for that
 * origin only: SITE_ORIGIN, else the platform's); any other origin's page cannot read them.
 */
function allowSite(config: Config, req: FastifyRequest, reply: FastifyReply) {
  const site = new URL(config.SITE_ORIGIN ?? config.publicUrl).origin;
  reply.header('vary', 'Origin');
  if (req.headers.origin === site) reply.header('access-control-allow-origin', site);
}

export const communityHandlers = {
  listNotices: ({ deps, auth }) => listNotices(deps.sql, auth),
  readNotices: ({ deps, auth, body }) => readNotices(deps.sql, auth, body.ids),
  reportProject: ({ deps, auth, body }) => reportProject(deps.sql, auth, body),
  /** A one-time address back into a listed room, naming the signed-in person there; 404 if not listed. */
  communityPass: async ({ deps, auth, body }) => {
    const [listed] = await publicListings(deps.sql, { slug: body.slug });
    if (!listed) throw notFound();
    return createCommunityPass(deps.sql, deps.config, auth.personId, {
      id: listed.projectId,
      workspaceId: listed.workspaceId,
      slug: listed.slug,
    });
  },

  /** Cached for a minute by browsers and any shared cache in front: the spec's listings cache. */
  communityListings: async ({ deps, req, reply }) => {
    allowSite(deps.config, req, reply);
    reply.header('cache-control', 'public, max-age=60');
    return listings(deps.sql, deps.config);
  },
  communityCover: async ({ deps, params, req, reply }) => {
    const cover = await publicCover(deps.sql, params.slug);
    allowSite(deps.config, req, reply);
    const sent = await sendStoredImage(req, reply, deps.storage, cover, 'public, max-age=60');
    if (!sent) throw notFound();
    return sent;
  },
} satisfies HandlerGroup;
