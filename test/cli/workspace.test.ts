import { describe, expect, it } from 'vitest';
import { setPlan } from '../../services/ops/ops.service.js';
import { uniqueSlug } from '../support/refusal.js';
import { expectRefusal } from './support/expect-refusal.js';
import { fixture, pitch, platformForPitch } from './support/pitch.js';

// `pitch workspace ls|use` (issue 16): the tool lists and switches workspaces, and `pitch deploy`
// deploys into the active one.

const ctx = platformForPitch();

describe('pitch workspace', () => {
  it('lists the workspaces, switches to a team by name, and deploys into it; then back by id', async () => {
    const { platform, builder, env } = ctx;
    const personal = (await builder.client.call('listWorkspaces'))[0];
    const team = await builder.client.call('createTeam', { body: { name: 'Field sales' } });
    await setPlan(platform.deps.sql, team.id, 'team');
    await builder.client.call('activateWorkspace', { params: { workspaceId: personal.id } });

    const ls = await pitch(['workspace', 'ls'], env);
    expect(ls.code, ls.stderr).toBe(0);
    expect(ls.stdout).toMatch(
      new RegExp(`\\*\\s+${personal.name.replace(/[.*+?^${}()|[\]\\']/g, '.')}\\s+personal\\s+owner\\s+${personal.id}`),
    );
    expect(ls.stdout).toMatch(new RegExp(`Field sales\\s+team\\s+owner\\s+${team.id}`));
    const json = JSON.parse((await pitch(['workspace', 'ls', '--json'], env)).stdout);
    expect(json.map((w: { id: string }) => w.id)).toEqual([personal.id, team.id]);

    const use = await pitch(['workspace', 'use', 'field SALES'], env);
    expect(use.code, use.stderr).toBe(0);
    expect(use.stdout).toContain('Now in Field sales (team, owner)');
    const slug = uniqueSlug('ws-cli');
    const deploy = await pitch(['deploy', '--project', slug], env, await fixture('static-site'));
    expect(deploy.code, deploy.stderr).toBe(0);
    const [row] = await platform.deps.sql<
      { workspaceId: string }[]
    >`select workspace_id from projects where slug = ${slug} and deleted_at is null`;
    expect(row.workspaceId).toBe(team.id);

    const back = await pitch(['workspace', 'use', personal.id], env);
    expect(back.code, back.stderr).toBe(0);
    const projects = JSON.parse((await pitch(['projects', 'ls', '--json'], env)).stdout);
    expect(projects.map((p: { slug: string }) => p.slug)).not.toContain(slug);
  });

  it('refuses a workspace it does not have, in one or two lines', async () => {
    expectRefusal(await pitch(['workspace', 'use', 'Nobody’s team'], ctx.env), /no workspace called/);
  });
});
