import { Command } from 'commander';
import { ask, type CliContext } from '../context.js';
import { requireProject } from '../project/find-project.js';
import { contextOf } from './command-context.js';

// Every listing command reads the same way: signed in, one call of the platform, the list as JSON
// with --json, a sentence when it is empty, else the list printed (a table, mostly).

type Client = ReturnType<CliContext['withToken']>;
type Project = Awaited<ReturnType<typeof requireProject>>;

interface Listing<T, Of> {
  description: string;
  /** What the call is said to be doing when the platform refuses ("listing builds"). */
  doing: string;
  load: (client: Client, of: Of) => Promise<readonly T[]>;
  /** The sentence said instead of an empty list; without it an empty list prints as any other. */
  none?: (of: Of) => string;
  print: (items: readonly T[]) => string;
}

/** A command that lists the signed-in person's or workspace's things. */
export function listCommand<T>(name: string, listing: Listing<T, undefined>): Command {
  return listingCommand(name, listing, null);
}

/** A command that lists one project's things: --project names it, else this folder's project. */
export function projectListCommand<T>(name: string, listing: Listing<T, Project>): Command {
  return listingCommand(name, listing, requireProject);
}

function listingCommand<T, Of>(
  name: string,
  listing: Listing<T, Of>,
  pick: ((ctx: CliContext, client: Client, flag: string | undefined) => Promise<Of>) | null,
): Command {
  const command = new Command(name).description(listing.description);
  if (pick) command.option('--project <slug>', "the project (default: this folder's)");
  return command.option('--json', 'print the list as JSON').action(async (options: { project?: string; json?: boolean }, self: Command) => {
    const ctx = contextOf(self);
    const { client } = await ctx.signedIn();
    const of = (pick ? await pick(ctx, client, options.project) : undefined) as Of;
    const items = await ask(listing.doing, () => listing.load(client, of));
    if (options.json) return ctx.json(items);
    if (items.length === 0 && listing.none) return ctx.info(listing.none(of));
    ctx.result(listing.print(items));
  });
}
