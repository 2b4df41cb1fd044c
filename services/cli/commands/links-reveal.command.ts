import { Command } from 'commander';
import { ask, type CliContext } from '../context.js';
import { contextOf } from './command-context.js';

export function linksRevealCommand(): Command {
  return new Command('reveal')
    .description("print a link's full address again (recorded in the project's history)")
    .argument('<link-id>', 'the link, as `pitch links ls` shows it')
    .action(async (linkId: string, _options, command: Command) => linksReveal(contextOf(command), linkId));
}

async function linksReveal(ctx: CliContext, linkId: string): Promise<void> {
  const { client } = await ctx.signedIn();
  const { link, url } = await ask(`revealing link ${linkId}`, () => client.call('revealLink', { params: { linkId } }));
  ctx.info(`Link for ${link.viewerName}:`);
  ctx.result(url);
}
