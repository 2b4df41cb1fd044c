import { Command } from 'commander';
import type { LinkRec } from '@demo-rooms/contract';
import { ask, type CliContext } from '../context.js';
import { requireProject } from '../project/find-project.js';
import { shortTime, table } from '../ui/table.js';
import { contextOf } from './command-context.js';

export function linksLsCommand(): Command {
  return new Command('ls')
    .description("a project's links (never their addresses: `pitch links reveal` shows one)")
    .option('--project <slug>', "the project (default: this folder's)")
    .option('--json', 'print the list as JSON')
    .action(async (options: { project?: string; json?: boolean }, command: Command) => linksLs(contextOf(command), options));
}

function state(link: LinkRec, now: number): string {
  if (link.revokedAt) return 'revoked';
  if (link.expiresAt && Date.parse(link.expiresAt) <= now) return 'expired';
  return 'open';
}

async function linksLs(ctx: CliContext, options: { project?: string; json?: boolean }): Promise<void> {
  const { client } = await ctx.signedIn();
  const project = await requireProject(ctx, client, options.project);
  const links = await ask('listing links', () => client.call('listLinks', { params: { projectId: project.id } }));
  if (options.json) return ctx.json(links);
  if (links.length === 0) return ctx.info(`No links in ${project.slug} yet: \`pitch links create NAME\` makes one.`);
  const now = Date.now();
  ctx.result(table(
    ['ID', 'VIEWER', 'EMAIL', 'STAGE', 'STATE', 'EXPIRES'],
    links.map((l) => [l.id, l.viewerName, l.viewerEmail ?? '-', l.stage, state(l, now), shortTime(l.expiresAt)]),
  ));
}
