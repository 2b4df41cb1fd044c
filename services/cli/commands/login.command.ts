import { Command } from 'commander';
import { ApiError } from '@demo-rooms/contract';
import { updateConfig } from '../config/config-file.js';
import { ask, type CliContext } from '../context.js';
import { Refusal } from '../refusal.js';
import { contextOf } from './command-context.js';

export function loginCommand(): Command {
  return new Command('login')
    .description('sign in with a code confirmed in the browser; the token is kept in a file only you can read')
    .action(async (_options, command: Command) => login(contextOf(command)));
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function login(ctx: CliContext): Promise<void> {
  const client = ctx.anonymous();
  const start = await ask('starting the sign-in', () => client.call('deviceStart'));
  ctx.info(`To sign in, open ${start.verifyUrl}`);
  ctx.info(`and confirm the code ${start.userCode}. Waiting…`);

  const deadline = Date.now() + start.expiresIn * 1000;
  let interval = start.interval;
  let token: string | null = null;
  while (token === null) {
    if (Date.now() > deadline) throw new Refusal('the sign-in code expired before it was confirmed', 'run `pitch login` again');
    await sleep(interval * 1000);
    try {
      const reply = await client.call('deviceToken', { body: { deviceCode: start.deviceCode } });
      if ('token' in reply) token = reply.token;
      else interval = reply.interval;
    } catch (err) {
      // The platform answers 404 once the code expired or its token was collected elsewhere.
      if (err instanceof ApiError && err.status === 404)
        throw new Refusal('the sign-in code expired or was already used', 'run `pitch login` again');
      throw err;
    }
  }

  const signed = ctx.withToken(token);
  const account = await ask('reading the account', () => signed.call('whoami'));
  await updateConfig((config) => {
    config.hosts[ctx.apiUrl] = { token: token!, email: account.email };
  });
  ctx.info(`Signed in to ${ctx.apiUrl} as ${account.email}.`);
}
