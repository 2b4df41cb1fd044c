import type { EndpointRow } from '../../data/webhooks.sql.js';
import { noticeWorkspace } from '../../data/notices.sql.js';
import { membersOf } from '../../data/teams.sql.js';
import type { Deps } from '../api-deps.js';
import type { Actor } from '../links/links.service.js';

// A new webhook endpoint receives every event it hears of the whole workspace, viewer names and
// comments included, until someone removes it (security-4 L5). The owners hear of each one, in
// the app (a notice) and by mail, so an endpoint added with a leaked token or by someone about to
// leave is noticed; the listing then shows who added it and whether they are still a member.

export async function tellOwnersOfNewEndpoint(deps: Deps, actor: Actor, endpoint: EndpointRow): Promise<void> {
  const members = await membersOf(deps.sql, actor.workspaceId);
  const by = members.find((m) => m.personId === actor.personId);
  const who = by ? `${by.name || by.email} (${by.email})` : 'Someone';
  const url = endpoint.url.slice(0, 200);
  const body = `${who} added a webhook endpoint: ${url}. It receives ${endpoint.kinds.join(', ')} events of this workspace.`;
  await noticeWorkspace(
    deps.sql,
    {
      workspaceId: actor.workspaceId,
      projectId: null,
      kind: 'webhook.added',
      title: 'A webhook endpoint was added',
      body,
      href: '/webhooks',
    },
    'owners',
  );
  for (const owner of members.filter((m) => m.role === 'owner')) {
    // The notice is the record; a mail that cannot go out now must not undo the endpoint.
    await deps.mailer
      .send({
        to: owner.email,
        subject: 'A webhook endpoint was added',
        text:
          `${body}\n\nIf you expected it, there is nothing to do. If not, open ${deps.config.publicUrl}/webhooks, ` +
          'delete it, and sign out the person or token that added it.',
      })
      .catch((err: Error) => deps.log.warn({ workspaceId: actor.workspaceId, err: err.message }, 'webhook-added mail not sent'));
  }
}
