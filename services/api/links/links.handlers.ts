import type { FastifyReply } from 'fastify';
import type { Config } from '../../core/infra/config.js';
import type { HandlerGroup } from '../routing/handler.js';
import { projectIn } from '../../data/projects.sql.js';
import { linkUrlOf, linkView } from './link-view.js';
import { linksOf } from '../../data/links.sql.js';
import { createLink, reissueLink, revealLink, revokeLink, updateLink, type LinkWithKey } from './links.service.js';

/** A reply carrying a link's address: no cache anywhere may keep it. */
function withAddress(config: Config, reply: FastifyReply, { link, key }: LinkWithKey) {
  reply.header('cache-control', 'no-store');
  return { link: linkView(link), url: linkUrlOf(config, key) };
}

export const linkHandlers = {
  createLink: async ({ deps, auth, params, body, reply }) =>
    withAddress(deps.config, reply, await createLink(deps.sql, deps.config.APP_SECRET, auth, params.projectId, body)),

  listLinks: async ({ deps, auth, params }) => {
    const project = await projectIn(deps.sql, auth.workspaceId, params.projectId);
    return (await linksOf(deps.sql, project.id)).map(linkView);
  },

  updateLink: async ({ deps, auth, params, body }) => linkView(await updateLink(deps.sql, auth, params.linkId, body)),

  revokeLink: async ({ deps, auth, params }) => linkView(await revokeLink(deps.sql, auth, params.linkId)),

  revealLink: async ({ deps, auth, params, reply }) =>
    withAddress(deps.config, reply, await revealLink(deps.sql, deps.config.APP_SECRET, auth, params.linkId)),

  reissueLink: async ({ deps, auth, params, reply }) =>
    withAddress(deps.config, reply, await reissueLink(deps.sql, deps.config.APP_SECRET, auth, params.linkId)),
} satisfies HandlerGroup;
