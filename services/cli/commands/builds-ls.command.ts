import { Command } from 'commander';
import { ask, type CliContext } from '../context.js';
import { requireProject } from '../project/find-project.js';
import { bytes, shortTime, table } from '../ui/table.js';
import { contextOf } from './command-context.js';

export function buildsLsCommand(): Command {
  return new Command('ls')
    .description("a project's builds, newest first; the live one is marked")
    .option('--project <slug>', "the project (default: this folder's)")
    .option('--json', 'print the list as JSON')
    .action(async (options: { project?: string; json?: boolean }, command: Command) => buildsLs(contextOf(command), options));
}

async function buildsLs(ctx: CliContext, options: { project?: string; json?: boolean }): Promise<void> {
  const { client } = await ctx.signedIn();
  const project = await requireProject(ctx, client, options.project);
  const builds = await ask('listing builds', () => client.call('listBuilds', { params: { projectId: project.id } }));
  if (options.json) return ctx.json(builds);
  if (builds.length === 0) return ctx.info(`No builds in ${project.slug} yet.`);
  ctx.result(table(
    ['ID', 'KIND', 'SIZE', 'LIVE', 'CREATED', 'NOTE'],
    builds.map((b) => [b.id, b.kind, bytes(b.sizeBytes), b.live ? 'live' : '', shortTime(b.createdAt), b.note ?? '']),
  ));
}
