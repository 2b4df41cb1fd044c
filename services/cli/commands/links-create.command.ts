import { Command, InvalidArgumentError } from 'commander';
import { LINK_DEFAULT_DAYS } from '@demo-rooms/contract';
import { ask, type CliContext } from '../context.js';
import { Refusal } from '../refusal.js';
import { requireProject } from '../project/find-project.js';
import { contextOf } from './command-context.js';

interface Options {
  project?: string;
  email?: string;
  company?: string;
  days?: number;
  neverExpires?: boolean;
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
    .option('--company <company>', "the viewer's company, told to a build that personalises its copies (1-80 characters)")
    .option('--days <n>', `days until the link expires (1-365; default ${LINK_DEFAULT_DAYS}, the platform's)`, days)
    .option('--never-expires', 'a link that never expires (only on purpose)')
    .option('--project <slug>', "the project (default: this folder's)")
    .action(async (name: string, options: Options, command: Command) => linksCreate(contextOf(command), name, options));
}

async function linksCreate(ctx: CliContext, viewerName: string, options: Options): Promise<void> {
  if (options.neverExpires && options.days !== undefined)
    throw new Refusal('--days and --never-expires say different things', 'give one of them');
  const { client } = await ctx.signedIn();
  const project = await requireProject(ctx, client, options.project);
  const { link, url } = await ask('making the link', () =>
    client.call('createLink', {
      params: { projectId: project.id },
      // Without --days the platform's default applies (the API's, the same as the web app's).
      body: {
        viewerName,
        viewerEmail: options.email,
        viewerCompany: options.company,
        ...(options.neverExpires ? { expiresInDays: null } : options.days ? { expiresInDays: options.days } : {}),
      },
    }),
  );
  ctx.info(
    `Link ${link.id} for ${link.viewerName}${link.viewerCompany ? ` (${link.viewerCompany})` : ''}${link.expiresAt ? `, until ${link.expiresAt.slice(0, 10)}` : ', never expires'}:`,
  );
  ctx.result(url);
}
