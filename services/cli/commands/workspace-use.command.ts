import { Command } from 'commander';
import { ask, type CliContext } from '../context.js';
import { Refusal } from '../refusal.js';
import { contextOf } from './command-context.js';

// `pitch workspace use <name or id>`: the token's session acts on that workspace from now on
// (every later command, `pitch deploy` included), until another `use`.

export function workspaceUseCommand(): Command {
  return new Command('use')
    .description('act on another workspace from now on (by its name or id; `pitch workspace ls` lists them)')
    .argument('<workspace>', "the workspace's name or id")
    .option('--json', 'print the workspace as JSON')
    .action(async (which: string, options: { json?: boolean }, command: Command) => workspaceUse(contextOf(command), which, options));
}

async function workspaceUse(ctx: CliContext, which: string, options: { json?: boolean }): Promise<void> {
  const { client } = await ctx.signedIn();
  const workspaces = await ask('listing workspaces', () => client.call('listWorkspaces'));
  const byId = workspaces.find((w) => w.id === which);
  const byName = workspaces.filter((w) => w.name.toLowerCase() === which.trim().toLowerCase());
  if (!byId && byName.length > 1) {
    throw new Refusal(`${byName.length} workspaces are called ${which}`, 'name it by its id (`pitch workspace ls` shows them)');
  }
  const chosen = byId ?? byName[0];
  if (!chosen) throw new Refusal(`you have no workspace called ${which}`, 'see yours with `pitch workspace ls`');
  const active = await ask(`switching to ${chosen.name}`, () => client.call('activateWorkspace', { params: { workspaceId: chosen.id } }));
  if (options.json) return ctx.json(active);
  ctx.result(`Now in ${active.name} (${active.kind}, ${active.role}): commands act on it from here on.`);
}
