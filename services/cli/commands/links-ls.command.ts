import type { LinkRec } from '@demo-rooms/contract';
import { shortTime, table } from '../ui/table.js';
import { projectListCommand } from './list-command.js';

export const linksLsCommand = () =>
  projectListCommand('ls', {
    description: "a project's links (never their addresses: `pitch links reveal` shows one)",
    doing: 'listing links',
    load: (client, project) => client.call('listLinks', { params: { projectId: project.id } }),
    none: (project) => `No links in ${project.slug} yet: \`pitch links create NAME\` makes one.`,
    print: (links) => {
      const now = Date.now();
      return table(
        ['ID', 'VIEWER', 'EMAIL', 'STAGE', 'STATE', 'EXPIRES'],
        links.map((l) => [l.id, l.viewerName, l.viewerEmail ?? '-', l.stage, state(l, now), shortTime(l.expiresAt)]),
      );
    },
  });

function state(link: LinkRec, now: number): string {
  if (link.revokedAt) return 'revoked';
  if (link.expiresAt && Date.parse(link.expiresAt) <= now) return 'expired';
  return 'open';
}
