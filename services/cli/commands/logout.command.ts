import { Command } from 'commander';
import { updateConfig } from '../config/config-file.js';
import { ask, type CliContext } from '../context.js';
import { refusedStatus } from '../refusal.js';
import { contextOf } from './command-context.js';

export function logoutCommand(): Command {
  return new Command('logout')
    .description('end the session on the platform and forget its token')
    .action(async (_options, command: Command) => logout(contextOf(command)));
}

async function logout(ctx: CliContext): Promise<void> {
  const found = await ctx.token();
  // Signing out twice is not a failure (a script's cleanup step may run it either way).
  if (!found) return ctx.info(`Not signed in to ${ctx.apiUrl}: nothing to sign out of.`);
  const client = ctx.withToken(found.token);
  let ended = true;
  try {
    await ask('signing out', () => client.call('logout'));
  } catch (err) {
    // A session that already ended (expired, signed out elsewhere) is still forgotten here.
    if (refusedStatus(err) !== 401) throw err;
    ended = false;
  }
  if (found.source === 'file') {
    await updateConfig((config) => {
      delete config.hosts[ctx.apiUrl];
    });
  }
  ctx.info(ended ? `Signed out of ${ctx.apiUrl}.` : `The session had already ended; signed out of ${ctx.apiUrl}.`);
  if (found.source === 'env') ctx.info('The token came from PP_TOKEN: unset it, it no longer works.');
}
