import { Command } from 'commander';
import { ask, type CliContext } from '../context.js';
import { contextOf } from './command-context.js';

export function whoamiCommand(): Command {
  return new Command('whoami')
    .description('who the token signs in as, and in which workspace')
    .option('--json', 'print the account as JSON')
    .action(async (options: { json?: boolean }, command: Command) => whoami(contextOf(command), options));
}

const SOURCE = { flag: '--token', env: 'PP_TOKEN', file: 'pitch login' } as const;

async function whoami(ctx: CliContext, options: { json?: boolean }): Promise<void> {
  const { client, token } = await ctx.signedIn();
  const account = await ask('reading the account', () => client.call('whoami'));
  if (options.json) return ctx.json(account);
  ctx.result(account.email);
  ctx.info(
    `${account.displayName}, workspace ${account.workspace.name} (${account.workspace.role}), on ${ctx.apiUrl}; token from ${SOURCE[token.source]}`,
  );
}
