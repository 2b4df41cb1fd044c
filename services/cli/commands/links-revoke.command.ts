import { Command } from 'commander';
import { ask, type CliContext } from '../context.js';
import { contextOf } from './command-context.js';

export function linksRevokeCommand(): Command {
  return new Command('revoke')
    .description('stop a link opening the room, at once and for good')
    .argument('<link-id>', 'the link, as `pitch links ls` shows it')
    .action(async (linkId: string, _options, command: Command) => linksRevoke(contextOf(command), linkId));
}

async function linksRevoke(ctx: CliContext, linkId: string): Promise<void> {
  const { client } = await ctx.signedIn();
  const link = await ask(`revoking link ${linkId}`, () => client.call('revokeLink', { params: { linkId } }));
  ctx.info(`Revoked the link for ${link.viewerName}; it no longer opens the room.`);
}
