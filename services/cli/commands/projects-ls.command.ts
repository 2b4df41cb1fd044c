import { Command } from 'commander';
import { ask, type CliContext } from '../context.js';
import { shortTime, table } from '../ui/table.js';
import { contextOf } from './command-context.js';

export function projectsLsCommand(): Command {
  return new Command('ls')
    .description("the workspace's projects, newest first")
    .option('--json', 'print the list as JSON')
    .action(async (options: { json?: boolean }, command: Command) => projectsLs(contextOf(command), options));
}

async function projectsLs(ctx: CliContext, options: { json?: boolean }): Promise<void> {
  const { client } = await ctx.signedIn();
  const projects = await ask('listing projects', () => client.call('listProjects'));
  if (options.json) return ctx.json(projects);
  if (projects.length === 0) return ctx.info('No projects yet: `pitch deploy` makes one.');
  ctx.result(table(
    ['SLUG', 'NAME', 'LIVE', 'CREATED', 'ROOM'],
    projects.map((p) => [p.slug, p.name, p.liveBuildId ? 'yes' : 'no', shortTime(p.createdAt), p.roomUrl]),
  ));
}
