import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { opsCommand } from '../../test/support/ops-command.js';
import { startPlatform, type Platform } from '../../test/support/platform.js';

let platform: Platform;
beforeAll(async () => {
  platform = await startPlatform();
});
afterAll(async () => {
  await platform.close();
});

/** The operator command as an operator runs it: a process of its own against DATABASE_URL. */
const ops = (...args: string[]) => opsCommand(platform, ...args);
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

  // Issue 47: --name renamed an existing person silently, and that name is the one viewers see.
  it('token --name refuses to rename an existing person unless told --rename, and makes no token then', async () => {
    const email = `ops-${crypto.randomUUID()}@example.com`;
    const first = await ops('token', email, '--name', 'Grace Hopper');
    const token = lastLine(first.stdout);
    const refused = await ops('token', email, '--name', 'Ada');
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/is named "Grace Hopper", the name viewers see; .*--rename/);
    expect((await platform.fetch('/api/me/account', { token })).body.displayName).toBe('Grace Hopper');
    expect(await platform.deps.sql`select 1 from sessions s join people p on p.id = s.person_id where p.email = ${email}`).toHaveLength(1);
    // The same name again is no rename.
    expect((await ops('token', email, '--name', 'Grace Hopper')).code).toBe(0);
    const renamed = await ops('token', email, '--name', 'Ada', '--rename');
    expect(renamed.code).toBe(0);
    expect((await platform.fetch('/api/me/account', { token: lastLine(renamed.stdout) })).body.displayName).toBe('Ada');
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

  it('takedown pauses a project (423 on deploys) and restore lifts it', async () => {
    const email = `td-${crypto.randomUUID()}@example.com`;
    const token = lastLine((await ops('token', email)).stdout);
    const slug = `td-${crypto.randomUUID().slice(0, 10)}`;
    const project = (await platform.fetch('/api/projects', { method: 'POST', token, json: { slug, name: 'T' } })).body;
    const upload = () =>
      platform.fetch(`/api/projects/${project.id}/uploads`, { method: 'POST', token, json: { kind: 'static', sizeBytes: 10 } });
    expect((await ops('takedown', slug)).code).toBe(0);
    const refused = await upload();
    expect(refused.status).toBe(423);
    expect(refused.body.reason).toBe('paused');
    expect((await ops('restore', slug)).code).toBe(0);
    expect((await upload()).status).toBe(200);
    expect((await ops('takedown', 'no-such-project')).code).toBe(1);
  });

  it('a plan with fewer projects puts the newest over the limit (423) until the plan allows them again', async () => {
    const email = `ol-${crypto.randomUUID()}@example.com`;
    const token = lastLine((await ops('token', email)).stdout);
    await ops('plan', email, 'solo');
    const ids: string[] = [];
    for (let i = 0; i < 5; i++)
      ids.push(
        (
          await platform.fetch('/api/projects', {
            method: 'POST',
            token,
            json: { slug: `ol-${i}-${crypto.randomUUID().slice(0, 8)}`, name: `P${i}` },
          })
        ).body.id,
      );
    await ops('plan', email, 'free');
    const status = async (id: string) =>
      (await platform.fetch(`/api/projects/${id}/uploads`, { method: 'POST', token, json: { kind: 'static', sizeBytes: 1 } })).status;
    expect(await Promise.all(ids.map(status))).toEqual([200, 200, 200, 423, 423]);
    await ops('plan', email, 'solo');
    expect(await Promise.all(ids.map(status))).toEqual([200, 200, 200, 200, 200]);
  });

  it("plan <workspaceId> sets a team's plan and none cancels it; review lists what waits and refuses what is not there", async () => {
    const owner = await platform.person();
    const team = await owner.client.call('createTeam', { body: { name: 'Ops team' } });
    expect((await ops('plan', team.id, 'agency')).code).toBe(0);
    expect(await owner.client.call('getBilling')).toMatchObject({ plan: 'agency', status: 'active' });
    expect((await ops('plan', team.id, 'none')).code).toBe(0);
    expect(await owner.client.call('getBilling')).toMatchObject({ plan: 'free', status: 'canceled' });
    const listed = await ops('review');
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(/pending cards \(\d+\)[\s\S]*open appeals \(\d+\)[\s\S]*open reports \(\d+\)/);
    const unknown = await ops('review', 'uphold', crypto.randomUUID());
    expect([unknown.code, unknown.stderr]).toEqual([1, expect.stringContaining('no open appeal')]);
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

  it('feedback lists the newest product feedback with who sent it and from where', async () => {
    const email = `fb-${crypto.randomUUID()}@example.com`;
    const token = lastLine((await ops('token', email)).stdout);
    const { createClient } = await import('@demo-rooms/contract');
    const client = createClient({ baseUrl: platform.baseUrl, token });
    const note = `Feedback ${crypto.randomUUID()}\non two lines`;
    await client.call('sendProductFeedback', { body: { body: note, page: '/settings', appVersion: '2.0.1' } });
    const out = await ops('feedback', '--limit', '500');
    expect(out.code).toBe(0);
    expect(out.stdout).toContain(`${email}  ${email.split('@')[0]}'s workspace  /settings  2.0.1`);
    expect(out.stdout).toContain(`  ${note.replace('\n', '\n  ')}`);
    expect((await ops('feedback', '--limit', 'zero')).code).toBe(1);
  });

  it("feedback and review print others' words without a terminal control (no ESC [2J, no OSC 8 link)", async () => {
    const email = `esc-${crypto.randomUUID()}@example.com`;
    const token = lastLine((await ops('token', email)).stdout);
    const { createClient } = await import('@demo-rooms/contract');
    const client = createClient({ baseUrl: platform.baseUrl, token });
    const marker = crypto.randomUUID();
    const hostile = `\u001b[2J\u001b]8;;https://evil.example/\u0007click ${marker}\u001b]8;;\u0007\r\u009b31m\u001bc`;
    await client.call('sendProductFeedback', { body: { body: hostile, page: `/\u001b[31mred`, appVersion: '1\u001b]0;title\u0007' } });
    const feedback = await ops('feedback', '--limit', '500');
    expect(feedback.code, feedback.stderr).toBe(0);
    expect(feedback.stdout).toContain(`  click ${marker}\n`);
    expect(feedback.stdout).toContain(`${email}  ${email.split('@')[0]}'s workspace  /red  1\n`);

    const project = await client.call('createProject', { body: { slug: `esc-${marker.slice(0, 8)}`, name: 'Escapes' } });
    await client.call('reportProject', { body: { slug: project.slug, reason: 'other', detail: hostile } });
    const listed = await ops('review');
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain(`${project.slug}  other: click ${marker}\n`);
    for (const out of [feedback.stdout, listed.stdout]) {
      expect(out).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
      expect(out).not.toContain('evil.example');
    }
  });
});
