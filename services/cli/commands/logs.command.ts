import { Command } from 'commander';
import { ask, type CliContext } from '../context.js';
import { requireProject } from '../project/find-project.js';
import { shortTime } from '../ui/table.js';
import { contextOf } from './command-context.js';

export function logsCommand(): Command {
  return new Command('logs')
    .description("the latest times a copy of the project's container demo exited on its own, with its exit code and last output")
    .option('--project <slug>', "the project (default: this folder's)")
    .option('--json', 'print the list as JSON')
    .action(async (options: { project?: string; json?: boolean }, command: Command) => logs(contextOf(command), options));
}

async function logs(ctx: CliContext, options: { project?: string; json?: boolean }): Promise<void> {
  const { client } = await ctx.signedIn();
  const project = await requireProject(ctx, client, options.project);
  const exits = await ask('reading exits', () => client.call('listExits', { params: { projectId: project.id } }));
  if (options.json) return ctx.json(exits);
  if (exits.length === 0) return ctx.info(`No copy of ${project.slug} has exited on its own.`);
  // Oldest first on screen, so the newest ends next to the prompt.
  const blocks = [...exits].reverse().map((e) => {
    const what = e.when === 'crash' ? 'stopped after it was ready' : 'exited while starting';
    const code = e.oom ? 'out of memory' : `exit code ${e.exitCode ?? 'unknown'}`;
    const output = e.output ? e.output.split('\n').map((line) => `  ${line}`).join('\n') : '  (no output)';
    return `${shortTime(e.at)}  copy ${e.copyId} of build ${e.buildId}: ${what}, ${code}\n${output}`;
  });
  ctx.result(blocks.join('\n\n'));
}
