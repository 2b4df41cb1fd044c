import { Command } from 'commander';
import type { CliContext } from '../context.js';
import { contextOf } from './command-context.js';

type Client = ReturnType<CliContext['withToken']>;

/** `pitch links <name> <link-id>`: one signed-in change or read of one link, as `run` does it. */
export function linkCommand(
  name: string,
  description: string,
  run: (ctx: CliContext, client: Client, linkId: string) => Promise<void>,
): Command {
  return new Command(name)
    .description(description)
    .argument('<link-id>', 'the link, as `pitch links ls` shows it')
    .action(async (linkId: string, _options, command: Command) => {
      const ctx = contextOf(command);
      const { client } = await ctx.signedIn();
      await run(ctx, client, linkId);
    });
}
