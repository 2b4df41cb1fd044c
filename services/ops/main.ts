import { parseArgs } from 'node:util';
import { loadStorageConfig } from '../core/infra/config.js';
import { createSql } from '../core/infra/db.js';
import { createStorage } from '../core/infra/storage.js';
import { issueToken, setPlan, setSuspended } from './ops.service.js';
import { latestProductFeedback } from '../data/product-feedback.sql.js';
import { revokePullLogins } from '../data/pull-logins.sql.js';
import { opsProjectCommands } from './ops-projects.js';
import { review } from './ops-review.js';
import { reconcileUsageOnHosts, usageHosts } from './ops-usage.js';
import { terminalSafe } from '@demo-rooms/contract';

// `npm run ops -- <command>`: operator commands against DATABASE_URL and, for covers, the object
// store's S3_* settings (the launcher's local defaults are read from <DATA_DIR or .data>/components.json when
// DATABASE_URL is not set). What they print holds words others wrote (feedback, report details,
// appeals), so it goes out through terminalSafe.

const usage = `usage: npm run ops -- <command>
  token <email> [--name NAME [--rename]] [--kind cli|connector] [--read-only]
                                                                      prints a new bearer token (last line); --name names a
                                                                      new person, and changes an existing one's only with --rename
  plan <email> <plan>                                                 sets the personal workspace's plan
  plan <workspaceId> <plan|none>                                      sets a workspace's plan (none: a team's is cancelled)
  suspend <email> | unsuspend <email>                                 the workspace's platform pause
  revoke-pull-logins <workspaceId>                                    refuses every registry pull login issued so far (a leaked pull secret)
  takedown <slug> | restore <slug>                                    a project's platform pause (a takedown also pulls its listing)
  review [list | approve <slug> | reject <slug> <reason> | pull <slug> <reason>
         | cover <slug> <file> | approve-cover <slug> | reject-cover <slug> <reason>
         | uphold <appeal id> [note] | deny <appeal id> [note] | handled <report id>]
                                                                      the community's pending cards, held covers, appeals and reports
  feedback [--limit N]                                                the newest product feedback (50 unless told)
  usage reconcile [--since <ISO date>]                                each live runner host's billed seconds against its engine's
                                                                      record (the last 24 h unless told): differences and a summary`;

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    limit: { type: 'string' },
    since: { type: 'string' },
    name: { type: 'string' },
    rename: { type: 'boolean' },
    kind: { type: 'string' },
    'read-only': { type: 'boolean' },
    help: { type: 'boolean' },
  },
});
const [command, ...args] = positionals;
if (!command || values.help) {
  console.log(usage);
  process.exit(command ? 0 : 1);
}

const env = process.env.DATABASE_URL ? process.env : { ...(await localEnv()), ...process.env };
const sql = createSql(env.DATABASE_URL!, { max: 1 });
// Made now, used only by the cover commands: an S3 client connects on its first request.
const storage = createStorage(loadStorageConfig(env));
try {
  await run(command, args);
} catch (err) {
  console.error(terminalSafe(`ops: ${(err as Error).message}`));
  process.exitCode = 1;
} finally {
  await sql.end();
  storage.client.destroy();
}

async function run(command: string, args: string[]) {
  const need = (n: number) => {
    if (args.length < n) throw new Error(`${command} needs ${n} argument(s)\n${usage}`);
  };
  switch (command) {
    case 'token': {
      need(1);
      const kind = (values.kind ?? 'cli') as 'cli' | 'connector';
      if (!['cli', 'connector'].includes(kind)) throw new Error('--kind is cli or connector');
      const { token, expiresAt } = await issueToken(sql, args[0], {
        name: values.name,
        rename: values.rename,
        kind,
        readOnly: values['read-only'],
      });
      console.log(`# ${kind}${values['read-only'] ? ' read-only' : ''} token for ${args[0]}, valid until ${expiresAt.toISOString()}`);
      console.log(token);
      return;
    }
    case 'plan':
      need(2);
      await setPlan(sql, args[0], args[1]);
      console.log(`plan of ${args[0]} is now ${args[1]}`);
      return;
    case 'suspend':
    case 'unsuspend':
      need(1);
      await setSuspended(sql, args[0], command === 'suspend');
      console.log(`${args[0]}: ${command === 'suspend' ? 'suspended' : 'no longer suspended'}`);
      return;
    case 'revoke-pull-logins':
      need(1);
      if (!(await revokePullLogins(sql, args[0]))) throw new Error(`no workspace ${args[0]}`);
      console.log(`${args[0]}: every pull login issued so far is refused; the runner's next one is honoured`);
      return;
    case 'review':
      console.log(terminalSafe(await review(sql, storage, args)));
      return;
    case 'feedback': {
      const limit = Number(values.limit ?? 50);
      if (!Number.isInteger(limit) || limit < 1) throw new Error('--limit is a whole number from 1');
      for (const f of await latestProductFeedback(sql, limit)) {
        console.log(
          terminalSafe(
            `${f.createdAt.toISOString()}  ${f.email}  ${f.workspaceName ?? '(workspace gone)'}  ${f.page ?? '-'}  ${f.appVersion ?? '-'}`,
          ),
        );
        console.log(terminalSafe(`  ${f.body.replace(/\n/g, '\n  ')}`));
      }
      return;
    }
    case 'usage': {
      if (args[0] !== 'reconcile') throw new Error(`usage takes reconcile\n${usage}`);
      const since = values.since ? new Date(values.since) : new Date(Date.now() - 24 * 60 * 60 * 1000);
      if (Number.isNaN(since.getTime())) throw new Error('--since is an ISO date, e.g. 2026-11-01 or 2026-11-01T00:00:00Z');
      if (!env.APP_SECRET) throw new Error('APP_SECRET is not set: the runners answer only with the key made from it');
      const hosts = await usageHosts(sql, {
        appSecret: env.APP_SECRET,
        runnerUrl: env.RUNNER_URL,
        fallbackUrl: `http://127.0.0.1:${env.RUNNER_PORT ?? 8081}`,
      });
      const { lines, failed } = await reconcileUsageOnHosts(hosts, env.APP_SECRET, since);
      for (const line of lines) console.log(terminalSafe(line));
      if (failed) process.exitCode = 1;
      return;
    }
    default:
      if (command in opsProjectCommands) {
        need(1);
        console.log(terminalSafe(await opsProjectCommands[command](sql, args[0])));
        return;
      }
      throw new Error(`unknown command ${command}\n${usage}`);
  }
}

/** The settings the launcher gave the local platform's processes (DATABASE_URL, S3_*). */
async function localEnv(): Promise<Record<string, string>> {
  const { readFile } = await import('node:fs/promises');
  try {
    // The launcher records each component it started with the variables it gives the processes,
    // under the data dir `npm start` was given (DATA_DIR, else .data).
    const state = JSON.parse(await readFile(`${process.env.DATA_DIR ?? '.data'}/components.json`, 'utf8'));
    const env = Object.assign({}, ...Object.values(state.components ?? {}).map((c) => (c as { env?: Record<string, string> }).env ?? {}));
    if (env.DATABASE_URL) return env;
  } catch {}
  console.error(
    `ops: DATABASE_URL is not set and no local platform is running (${process.env.DATA_DIR ?? '.data'}/components.json): run npm start first`,
  );
  process.exit(1);
}
