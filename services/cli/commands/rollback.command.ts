import { Command } from 'commander';
import { ask, type CliContext } from '../context.js';
import { requireProject } from '../project/find-project.js';
import { Refusal } from '../refusal.js';
import { contextOf } from './command-context.js';

export function rollbackCommand(): Command {
  return new Command('rollback')
    .alias('make-live')
    .description('make another build live (a rollback when it is older than the live one); prints the room address')
    .argument('<build-id>', 'the build (its full id, or the start of it as `pitch builds ls` shows)')
    .option('--project <slug>', "the project (default: this folder's)")
    .action(async (buildId: string, options: { project?: string }, command: Command) => rollback(contextOf(command), buildId, options));
}

async function rollback(ctx: CliContext, given: string, options: { project?: string }): Promise<void> {
  const { client } = await ctx.signedIn();
  const project = await requireProject(ctx, client, options.project);
  const builds = await ask('listing builds', () => client.call('listBuilds', { params: { projectId: project.id } }));
  const matching = builds.filter((b) => b.id === given || b.id.startsWith(given));
  const exact = matching.find((b) => b.id === given);
  if (matching.length === 0) throw new Refusal(`no build ${given} in ${project.slug}`, '`pitch builds ls` lists them');
  if (!exact && matching.length > 1) throw new Refusal(`${given} is the start of ${matching.length} builds`, 'give more of the id');
  const build = exact ?? matching[0];
  if (build.live) {
    ctx.info(`Build ${build.id} is already live.`);
    return ctx.result(project.roomUrl);
  }
  // Said as the platform records it: a rollback only to a build older than the live one.
  const live = builds.find((b) => b.live);
  const rollingBack = live !== undefined && build.createdAt < live.createdAt;
  await ask('making the build live', () => client.call('makeLive', { params: { projectId: project.id, buildId: build.id } }));
  ctx.info(rollingBack ? `Rolled ${project.slug} back to build ${build.id}.` : `Build ${build.id} of ${project.slug} is live.`);
  ctx.result(project.roomUrl);
}
