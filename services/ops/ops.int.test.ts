import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlatform, type Platform } from '../../test/support/platform.js';

const run = promisify(execFile);
let platform: Platform;
beforeAll(async () => { platform = await startPlatform(); });
afterAll(async () => { await platform.close(); });

/** The operator command as an operator runs it: a process of its own against DATABASE_URL. */
async function ops(...args: string[]) {
  try {
    const { stdout, stderr } = await run('node_modules/.bin/tsx', ['services/ops/main.ts', ...args], {
      env: { ...process.env, DATABASE_URL: platform.deps.config.DATABASE_URL },
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}
const lastLine = (s: string) => s.trim().split('\n').at(-1)!;

describe('npm run ops', () => {
  it('token creates the person and prints a working token as the last line', async () => {
    const email = `ops-${crypto.randomUUID()}@example.com`;
    const out = await ops('token', email, '--name', 'Grace');
    expect(out.code).toBe(0);
    const me = await platform.fetch('/api/me/account', { token: lastLine(out.stdout) });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ email, displayName: 'Grace' });
    // A second token for the same person reuses the person and the workspace.
    const again = await ops('token', email);
    const me2 = await platform.fetch('/api/me/account', { token: lastLine(again.stdout) });
    expect(me2.body.userId).toBe(me.body.userId);
    expect(me2.body.workspace.id).toBe(me.body.workspace.id);
  });

  it('token --kind connector makes a token this API refuses', async () => {
    const out = await ops('token', `con-${crypto.randomUUID()}@example.com`, '--kind', 'connector');
    expect(out.code).toBe(0);
    expect((await platform.fetch('/api/me/account', { token: lastLine(out.stdout) })).status).toBe(401);
  });

  it('plan, suspend and unsuspend change the workspace', async () => {
    const email = `plan-${crypto.randomUUID()}@example.com`;
    const token = lastLine((await ops('token', email)).stdout);
    expect((await ops('plan', email, 'studio')).code).toBe(0);
    expect((await platform.fetch('/api/billing', { token })).body.plan).toBe('studio');
    await ops('suspend', email);
    expect((await platform.fetch('/api/billing', { token })).body.suspended).toBe(true);
    await ops('unsuspend', email);
    expect((await platform.fetch('/api/billing', { token })).body.suspended).toBe(false);
  });

  it('refuses an unknown plan, an unknown person and an unknown command with exit 1', async () => {
    const email = `bad-${crypto.randomUUID()}@example.com`;
    await ops('token', email);
    const badPlan = await ops('plan', email, 'platinum');
    expect(badPlan.code).toBe(1);
    expect(badPlan.stderr).toContain('unknown plan');
    expect((await ops('plan', 'nobody@example.com', 'pro')).code).toBe(1);
    expect((await ops('frobnicate')).code).toBe(1);
  });
});
