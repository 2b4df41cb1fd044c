import { Command } from 'commander';
import { ask } from '../context.js';
import { Refusal } from '../refusal.js';
import { contextOf } from './command-context.js';

// `pitch links update <link-id> --company <company>` (or --no-company): what the link says of its
// viewer, told to a build that personalises its copies (manifest `personalise`).

export function linksUpdateCommand(): Command {
  return new Command('update')
    .description('change what a link says of its viewer: their company (told to a build that personalises its copies)')
    .argument('<link-id>', 'the link, as `pitch links ls` shows it')
    .option('--company <company>', "the viewer's company (1-80 characters)")
    .option('--no-company', 'clear the company')
    .action(async (linkId: string, options: { company?: string | false }, command: Command) => {
      if (options.company === undefined) throw new Refusal('nothing to change', 'give --company <company> or --no-company');
      const ctx = contextOf(command);
      const { client } = await ctx.signedIn();
      const viewerCompany = options.company === false ? null : options.company;
      const link = await ask(`updating link ${linkId}`, () => client.call('updateLink', { params: { linkId }, body: { viewerCompany } }));
      ctx.info(`The link for ${link.viewerName} ${link.viewerCompany ? `names their company ${link.viewerCompany}` : 'names no company'}.`);
    });
}
