import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlatform, type Platform } from '../../../test/support/platform.js';

let platform: Platform;
beforeAll(async () => {
  platform = await startPlatform();
});
afterAll(async () => {
  await platform.close();
});

async function personId(email: string): Promise<string> {
  const [row] = await platform.deps.sql<{ id: string }[]>`select id from people where email = ${email}`;
  return row.id;
}

async function joinTeam(email: string, name: string): Promise<string> {
  const [team] = await platform.deps.sql<{ id: string }[]>`insert into workspaces (name, kind) values (${name}, 'team') returning id`;
  await platform.deps.sql`insert into memberships (workspace_id, person_id, role) values (${team.id}, ${await personId(email)}, 'member')`;
  return team.id;
}

describe('workspaces', () => {
  it('lists the own workspace first, then teams, with the active one marked', async () => {
    const p = await platform.person();
    const teamId = await joinTeam(p.email, 'Acme');
    const list = await p.client.call('listWorkspaces');
    expect(list.map((w) => [w.kind, w.active])).toEqual([
      ['personal', true],
      ['team', false],
    ]);
    expect(list[1]).toMatchObject({ id: teamId, name: 'Acme', role: 'member' });
  });

  it("acts on the session's active workspace while the person belongs to it, else the first joined", async () => {
    const p = await platform.person();
    const teamId = await joinTeam(p.email, 'Beta');
    await platform.deps.sql`update sessions set active_workspace_id = ${teamId} where person_id = ${await personId(p.email)}`;
    expect((await p.client.call('whoami')).workspace.id).toBe(teamId);
    await platform.deps.sql`delete from memberships where workspace_id = ${teamId}`;
    expect((await p.client.call('whoami')).workspace.kind).toBe('personal');
  });

  it('treats a person who belongs to no workspace as signed out', async () => {
    const p = await platform.person();
    await platform.deps.sql`delete from memberships where person_id = ${await personId(p.email)}`;
    const res = await platform.fetch('/api/workspaces', { token: p.token });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'sign in first' });
  });
});

describe('billing', () => {
  it('shows the Free plan, its allowance and that paid plans are coming', async () => {
    const p = await platform.person();
    const billing = await p.client.call('getBilling');
    expect(billing).toMatchObject({ plan: 'free', status: 'active', interval: null, suspended: false, paidPlans: 'coming-soon' });
    expect(billing.allowance).toMatchObject({ staticOnly: true, privateLinks: false, pipeline: false, fullAnalytics: false });
  });

  it('follows the plan the operator sets and the suspension', async () => {
    const p = await platform.person({ plan: 'team' });
    await platform.deps
      .sql`update workspaces set suspended_at = now() where id = (select workspace_id from personal_workspaces where person_id = ${await personId(p.email)})`;
    const billing = await p.client.call('getBilling');
    expect(billing.plan).toBe('team');
    expect(billing.suspended).toBe(true);
    expect(billing.allowance).toMatchObject({ pipeline: true, privateLinks: true });
  });
});
