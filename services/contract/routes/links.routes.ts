import { z } from 'zod';
import { Email, Uri } from '../common.js';
import { LINK_DEFAULT_DAYS, LinkRec, PipelineRec, ViewerCompany, ViewerName } from '../resources/link.js';
import { route } from '../route.js';
import { LinkParams, ProjectParams } from './params.js';

// Spec 4.2: private links. The full address is returned only here, by create, reveal and reissue.

const LinkWithUrl = z.object({ link: LinkRec, url: Uri });

export const linkRoutes = {
  createLink: route({
    operation: 'createLink',
    method: 'POST',
    path: '/api/projects/:projectId/links',
    status: 201,
    tag: 'links',
    summary: `A link for one named viewer; nothing is sent to the email. It expires after \`expiresInDays\` (1–365), ${LINK_DEFAULT_DAYS} days when absent; \`expiresInDays: null\` makes one that never expires, only on purpose. 402 without private links, beyond links per project, or when the viewer-hours are used.`,
    params: ProjectParams,
    body: z.object({
      viewerName: ViewerName,
      viewerEmail: Email.nullable().optional(),
      /** The viewer's company, for a build that personalises its copies (manifest `personalise`). */
      viewerCompany: ViewerCompany.optional(),
      /** Absent: LINK_DEFAULT_DAYS. `null`: never expires (asked for on purpose). */
      expiresInDays: z.number().int().min(1).max(365).nullable().optional(),
    }),
    reply: LinkWithUrl,
    errors: [402, 403, 404, 423],
  }),
  listLinks: route({
    operation: 'listLinks',
    method: 'GET',
    path: '/api/projects/:projectId/links',
    status: 200,
    tag: 'links',
    summary: "The project's links; never their addresses.",
    params: ProjectParams,
    reply: z.array(LinkRec),
    errors: [404],
  }),
  updateLink: route({
    operation: 'updateLink',
    method: 'POST',
    path: '/api/links/:linkId',
    status: 200,
    tag: 'links',
    summary:
      'Changes what the link says of its viewer: `viewerCompany` (1–80 characters; `null` clears it), passed to a build that personalises its copies. A field left out is left as it is.',
    params: LinkParams,
    body: z.object({ viewerCompany: ViewerCompany.nullable().optional() }),
    reply: LinkRec,
    errors: [403, 404],
  }),
  revokeLink: route({
    operation: 'revokeLink',
    method: 'POST',
    path: '/api/links/:linkId/revoke',
    status: 200,
    tag: 'links',
    summary: 'Stops the link opening the room at once, for good; visits, answers and comments stay.',
    params: LinkParams,
    reply: LinkRec,
    errors: [404],
  }),
  revealLink: route({
    operation: 'revealLink',
    method: 'POST',
    path: '/api/links/:linkId/reveal',
    status: 200,
    tag: 'links',
    summary:
      'The full address again, sent no-store and recorded as link.copy; 422 revoked, expired or unrecoverable; 403 for a read-only connection.',
    params: LinkParams,
    reply: LinkWithUrl,
    errors: [403, 404, 422],
  }),
  reissueLink: route({
    operation: 'reissueLink',
    method: 'POST',
    path: '/api/links/:linkId/reissue',
    status: 200,
    tag: 'links',
    summary:
      'A new address for the link; the old one stops at once; recorded as link.reissue; 422 revoked or expired; 402 on a plan without private links.',
    params: LinkParams,
    reply: LinkWithUrl,
    errors: [402, 403, 404, 422],
  }),
  pipeline: route({
    operation: 'pipeline',
    method: 'GET',
    path: '/api/pipeline',
    status: 200,
    tag: 'links',
    summary: 'Every link across the workspace, with its project; 402 pipeline on Free (spec: Free has no pipeline).',
    reply: z.array(PipelineRec),
    errors: [402],
  }),
};
