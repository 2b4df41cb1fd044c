import { Command, InvalidArgumentError } from 'commander';
import { ask, type CliContext } from '../context.js';
import { requireProject } from '../project/find-project.js';
import { contextOf } from './command-context.js';

interface Options {
  project?: string;
  email?: string;
  days?: number;
}

function days(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 365) throw new InvalidArgumentError('a whole number of days from 1 to 365');
  return n;
}

export function linksCreateCommand(): Command {
  return new Command('create')
    .description('a private link for one named viewer; prints its address')
    .argument('<name>', "the viewer's name")
    .option('--email <email>', "the viewer's email (nothing is sent to it)")
    .option('--days <n>', 'days until the link expires (1-365)', days)
    .option('--project <slug>', "the project (default: this folder's)")
    .action(async (name: string, options: Options, command: Command) => linksCreate(contextOf(command), name, options));
}

async function linksCreate(ctx: CliContext, viewerName: string, options: Options): Promise<void> {
  const { client } = await ctx.signedIn();
  const project = await requireProject(ctx, client, options.project);
  const { link, url } = await ask('making the link', () =>
    client.call('createLink', {
      params: { projectId: project.id },
      body: { viewerName, viewerEmail: options.email, expiresInDays: options.days },
    }),
  );
  ctx.info(`Link ${link.id} for ${link.viewerName}${link.expiresAt ? `, until ${link.expiresAt.slice(0, 10)}` : ''}:`);
  ctx.result(url);
}
