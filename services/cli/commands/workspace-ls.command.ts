import { Command } from 'commander';
import { ask, type CliContext } from '../context.js';
import { table } from '../ui/table.js';
import { contextOf } from './command-context.js';

export function workspaceLsCommand(): Command {
  return new Command('ls')
    .description('your workspaces, your own first; * marks the one commands act on')
    .option('--json', 'print the list as JSON')
    .action(async (options: { json?: boolean }, command: Command) => workspaceLs(contextOf(command), options));
}

async function workspaceLs(ctx: CliContext, options: { json?: boolean }): Promise<void> {
  const { client } = await ctx.signedIn();
  const workspaces = await ask('listing workspaces', () => client.call('listWorkspaces'));
  if (options.json) return ctx.json(workspaces);
  ctx.result(table(
    ['', 'NAME', 'KIND', 'ROLE', 'ID'],
    workspaces.map((w) => [w.active ? '*' : '', w.name, w.kind, w.role, w.id]),
  ));
}
