import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlatform, type Platform } from '../../../test/support/platform.js';
import { refusal, uniqueSlug } from '../../../test/support/refusal.js';
import { deployStaticRoom } from '../../../test/support/room.js';
import { setPlan } from '../../ops/ops.service.js';
import { teamHistory } from '../../data/workspace-history.sql.js';

// Workspaces and teams (spec 2.6, 3 Invitation and Team, 4.3, 5 (7); issue 16): every endpoint
// with its refusals, through the typed client (which checks every reply against the contract).

let platform: Platform;
beforeAll(async () => {
  platform = await startPlatform({ workers: true });
});
afterAll(async () => {
  await platform.close();
});

type Person = Awaited<ReturnType<Platform['person']>>;

/** A team owned by a new person, given `plan` by the operator (a new team has none). */
async function teamOf(plan: string | null = 'team', owner?: Person) {
  const o = owner ?? (await platform.person({ name: 'Olive Owner' }));
  const team = await o.client.call('createTeam', { body: { name: `Team ${uniqueSlug('t')}` } });
  if (plan) await setPlan(platform.deps.sql, team.id, plan);
  return { owner: o, team };
}

/** `who` invited to `team` by its owner, and accepted. */
async function join(owner: Person, teamId: string, who?: Person) {
  const p = who ?? (await platform.person({ name: 'Mia Member' }));
  const { invitation } = await owner.client.call('createInvitation', { params: { workspaceId: teamId }, body: { email: p.email } });
  await p.client.call('acceptInvitation', { params: { invitationId: invitation.id } });
  return p;
}

const userIdOf = async (p: Person) => (await p.client.call('whoami')).userId;

describe('teams', () => {
  it('createTeam makes the caller its owner, with no plan, and switches the session to it', async () => {
    const owner = await platform.person();
    const team = await owner.client.call('createTeam', { body: { name: 'Acme sales' } });
    expect(team).toMatchObject({ name: 'Acme sales', kind: 'team', role: 'owner', active: true });
    expect((await owner.client.call('whoami')).workspace).toMatchObject({ id: team.id, kind: 'team' });
    const billing = await owner.client.call('getBilling');
    expect(billing).toMatchObject({ plan: 'free', kind: 'team', status: 'canceled', seats: { used: 1, allowed: 1 } });
    const list = await owner.client.call('listWorkspaces');
    expect(list.map((w) => [w.kind, w.active])).toEqual([
      ['personal', false],
      ['team', true],
    ]);
    expect((await teamHistory(platform.deps.sql, team.id)).map((e) => e.kind)).toEqual(['team.create']);
  });

  it('refuses a second team while the caller owns one without a plan (422 unlicensed), and not once it has one', async () => {
    const owner = await platform.person();
    const first = await owner.client.call('createTeam', { body: { name: 'First' } });
    const second = await refusal(owner.client.call('createTeam', { body: { name: 'Second' } }));
    expect(second).toMatchObject({ status: 422, body: { error: 'refused: unlicensed', reason: 'unlicensed' } });
    await setPlan(platform.deps.sql, first.id, 'team');
    expect((await owner.client.call('createTeam', { body: { name: 'Second' } })).name).toBe('Second');
  });

  it('takes a name of 1 to 80 characters (400 invalid otherwise, nothing made)', async () => {
    const owner = await platform.person();
    for (const name of ['', 'x'.repeat(81)]) {
      const res = await platform.fetch('/api/workspaces', { method: 'POST', token: owner.token, json: { name } });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('invalid');
    }
    expect((await owner.client.call('listWorkspaces')).length).toBe(1);
  });

  it('renameWorkspace: owners only (403 permission for a member), 404 for an outsider; a personal workspace too', async () => {
    const { owner, team } = await teamOf();
    const member = await join(owner, team.id);
    const renamed = await owner.client.call('renameWorkspace', { params: { workspaceId: team.id }, body: { name: 'Renamed' } });
    expect(renamed).toMatchObject({ id: team.id, name: 'Renamed' });
    expect(
      await refusal(member.client.call('renameWorkspace', { params: { workspaceId: team.id }, body: { name: 'Mine' } })),
    ).toMatchObject({ status: 403, body: { error: 'role cannot', reason: 'permission', action: 'renameWorkspace' } });
    const outsider = await platform.person();
    expect(
      (await refusal(outsider.client.call('renameWorkspace', { params: { workspaceId: team.id }, body: { name: 'Mine' } }))).status,
    ).toBe(404);
    const personal = (await owner.client.call('listWorkspaces')).find((w) => w.kind === 'personal')!;
    expect((await owner.client.call('renameWorkspace', { params: { workspaceId: personal.id }, body: { name: 'Olive & co' } })).name).toBe(
      'Olive & co',
    );
    expect((await teamHistory(platform.deps.sql, team.id)).map((e) => e.kind)).toContain('team.rename');
  });

  it('activateWorkspace switches what every endpoint acts on; a workspace one is not in is 404', async () => {
    const { owner, team } = await teamOf();
    const personal = (await owner.client.call('listWorkspaces')).find((w) => w.kind === 'personal')!;
    const inTeam = await owner.client.call('createProject', { body: { slug: uniqueSlug('tp'), name: 'Team project' } });
    expect((await owner.client.call('activateWorkspace', { params: { workspaceId: personal.id } })).active).toBe(true);
    expect((await owner.client.call('listProjects')).map((p) => p.id)).not.toContain(inTeam.id);
    expect((await refusal(owner.client.call('getProject', { params: { projectId: inTeam.id } }))).status).toBe(404);
    await owner.client.call('activateWorkspace', { params: { workspaceId: team.id } });
    expect((await owner.client.call('listProjects')).map((p) => p.id)).toContain(inTeam.id);
    const stranger = await teamOf();
    expect((await refusal(owner.client.call('activateWorkspace', { params: { workspaceId: stranger.team.id } }))).status).toBe(404);
    expect((await refusal(owner.client.call('activateWorkspace', { params: { workspaceId: 'not-an-id' } }))).status).toBe(404);
  });
});

describe('members and roles', () => {
  it('listMembers: owners first, `you` marks the caller; another workspace is 404', async () => {
    const { owner, team } = await teamOf();
    const member = await join(owner, team.id);
    const seenByMember = await member.client.call('listMembers', { params: { workspaceId: team.id } });
    expect(seenByMember.map((m) => [m.email, m.role, m.you])).toEqual([
      [owner.email, 'owner', false],
      [member.email, 'member', true],
    ]);
    expect(seenByMember[1].displayName).toBe('Mia Member');
    const outsider = await platform.person();
    expect((await refusal(outsider.client.call('listMembers', { params: { workspaceId: team.id } }))).status).toBe(404);
  });

  it('setMemberRole: owners only; a team keeps an owner (422 team); an owner may hand over and step down', async () => {
    const { owner, team } = await teamOf();
    const member = await join(owner, team.id);
    const [ownerId, memberId] = [await userIdOf(owner), await userIdOf(member)];
    const params = (userId: string) => ({ workspaceId: team.id, userId });
    expect(await refusal(member.client.call('setMemberRole', { params: params(memberId), body: { role: 'owner' } }))).toMatchObject({
      status: 403,
      body: { reason: 'permission', action: 'setMemberRole' },
    });
    expect(await refusal(owner.client.call('setMemberRole', { params: params(ownerId), body: { role: 'member' } }))).toMatchObject({
      status: 422,
      body: { error: 'refused: team', reason: 'team' },
    });
    const both = await owner.client.call('setMemberRole', { params: params(memberId), body: { role: 'owner' } });
    expect(both.map((m) => m.role)).toEqual(['owner', 'owner']);
    const after = await owner.client.call('setMemberRole', { params: params(ownerId), body: { role: 'member' } });
    expect(after.map((m) => [m.email, m.role])).toEqual([
      [member.email, 'owner'],
      [owner.email, 'member'],
    ]);
    expect(
      (await refusal(member.client.call('setMemberRole', { params: params(crypto.randomUUID()), body: { role: 'member' } }))).status,
    ).toBe(404);
    const bad = await platform.fetch(`/api/workspaces/${team.id}/members/${ownerId}/role`, {
      method: 'POST',
      token: member.token,
      json: { role: 'admin' },
    });
    expect(bad.status).toBe(400);
  });

  it("a personal workspace's owner stays its owner, and is never removed from it", async () => {
    const person = await platform.person();
    const personal = (await person.client.call('listWorkspaces'))[0];
    const me = await userIdOf(person);
    expect(
      (await refusal(person.client.call('setMemberRole', { params: { workspaceId: personal.id, userId: me }, body: { role: 'member' } })))
        .status,
    ).toBe(422);
    expect((await refusal(person.client.call('removeMember', { params: { workspaceId: personal.id, userId: me } }))).status).toBe(422);
    expect((await refusal(person.client.call('leaveTeam', { params: { workspaceId: personal.id } }))).body).toMatchObject({
      reason: 'team',
    });
    expect(
      await refusal(person.client.call('deleteTeam', { params: { workspaceId: personal.id }, body: { confirm: personal.name } })),
    ).toMatchObject({ status: 422, body: { reason: 'team' } });
  });

  it('removeMember: owners only, never yourself; the removed person loses the team from their next request', async () => {
    const { owner, team } = await teamOf();
    const project = await owner.client.call('createProject', { body: { slug: uniqueSlug('rm'), name: 'Shared' } });
    const member = await join(owner, team.id);
    const other = await join(owner, team.id);
    const [ownerId, memberId] = [await userIdOf(owner), await userIdOf(member)];
    expect((await member.client.call('getProject', { params: { projectId: project.id } })).id).toBe(project.id);
    expect(await refusal(other.client.call('removeMember', { params: { workspaceId: team.id, userId: memberId } }))).toMatchObject({
      status: 403,
      body: { reason: 'permission', action: 'removeMember' },
    });
    expect(await refusal(owner.client.call('removeMember', { params: { workspaceId: team.id, userId: ownerId } }))).toMatchObject({
      status: 422,
      body: { reason: 'team' },
    });
    const left = await owner.client.call('removeMember', { params: { workspaceId: team.id, userId: memberId } });
    expect(left.map((m) => m.email)).toEqual([owner.email, other.email]);
    expect((await refusal(member.client.call('getProject', { params: { projectId: project.id } }))).status).toBe(404);
    expect((await member.client.call('whoami')).workspace.kind).toBe('personal');
    expect((await refusal(member.client.call('listMembers', { params: { workspaceId: team.id } }))).status).toBe(404);
    expect((await refusal(owner.client.call('removeMember', { params: { workspaceId: team.id, userId: memberId } }))).status).toBe(404);
    expect((await teamHistory(platform.deps.sql, team.id)).find((e) => e.kind === 'member.remove')).toMatchObject({ subjectId: memberId });
  });

  it('leaveTeam: a member leaves; the last owner cannot (422 team); an outsider is 404', async () => {
    const { owner, team } = await teamOf();
    const member = await join(owner, team.id);
    expect(await refusal(owner.client.call('leaveTeam', { params: { workspaceId: team.id } }))).toMatchObject({
      status: 422,
      body: { reason: 'team' },
    });
    expect(await member.client.call('leaveTeam', { params: { workspaceId: team.id } })).toEqual({ left: true });
    expect((await member.client.call('listWorkspaces')).map((w) => w.kind)).toEqual(['personal']);
    expect((await refusal(member.client.call('leaveTeam', { params: { workspaceId: team.id } }))).status).toBe(404);
  });

  it('workspace people: the people of the active workspace, with their photos served only to those who share a workspace', async () => {
    const { owner, team } = await teamOf();
    const member = await join(owner, team.id);
    const photo = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#c2255c' } })
      .jpeg()
      .withExif({ IFD0: { Copyright: 'secret place' } })
      .toBuffer();
    const put = await platform.fetch('/api/me/photo', {
      method: 'PUT',
      token: member.token,
      body: photo,
      headers: { 'content-type': 'image/png' },
    });
    expect(put.status).toBe(200);
    expect(put.body.image).toMatch(/\/api\/people\/[0-9a-f-]+\/photo\?v=/);
    const people = await owner.client.call('workspacePeople');
    const seen = people.find((p) => p.displayName === 'Mia Member')!;
    expect(seen.image).toBe(put.body.image);
    const path = new URL(seen.image!).pathname;
    const got = await fetch(platform.baseUrl + path, { headers: { authorization: `Bearer ${owner.token}` } });
    expect(got.status).toBe(200);
    expect(got.headers.get('content-type')).toBe('image/jpeg');
    const bytes = Buffer.from(await got.arrayBuffer());
    expect((await sharp(bytes).metadata()).exif).toBeUndefined();
    const again = await fetch(platform.baseUrl + path, {
      headers: { authorization: `Bearer ${owner.token}`, 'if-none-match': got.headers.get('etag')! },
    });
    expect(again.status).toBe(304);
    const stranger = await platform.person();
    expect((await platform.fetch(path, { token: stranger.token })).status).toBe(404);
    expect((await platform.fetch(`/api/people/${await userIdOf(owner)}/photo`, { token: member.token })).status).toBe(404); // no photo
    const notImage = await platform.fetch('/api/me/photo', {
      method: 'PUT',
      token: member.token,
      body: Buffer.from('GIF89a not really'),
      headers: { 'content-type': 'image/png' },
    });
    expect(notImage).toMatchObject({ status: 422, body: { reason: 'file' } });
    const removed = await member.client.call('removePhoto');
    expect(removed.image).toBeNull();
    expect((await platform.fetch(path, { token: owner.token })).status).toBe(404);
  });

  it('refuses a photo over 2 MB by its declared length and one over 4096 pixels a side', async () => {
    const person = await platform.person();
    const big = await platform.fetch('/api/me/photo', { method: 'PUT', token: person.token, body: Buffer.alloc(2 * 1024 * 1024 + 1) });
    expect(big).toMatchObject({ status: 422, body: { reason: 'file' } });
    const wide = await sharp({ create: { width: 4097, height: 8, channels: 3, background: '#000' } })
      .png()
      .toBuffer();
    const tooWide = await platform.fetch('/api/me/photo', { method: 'PUT', token: person.token, body: wide });
    expect(tooWide).toMatchObject({ status: 422, body: { reason: 'file' } });
  });
});

describe('invitations', () => {
  it('createInvitation answers the invitation and an address; listInvitations shows those waiting; both owners only', async () => {
    const { owner, team } = await teamOf();
    const invitee = await platform.person();
    const made = await owner.client.call('createInvitation', {
      params: { workspaceId: team.id },
      body: { email: invitee.email.toUpperCase() },
    });
    expect(made.invitation).toMatchObject({ email: invitee.email, role: 'member', invitedBy: 'Olive Owner' });
    expect(Date.parse(made.invitation.expiresAt) - Date.parse(made.invitation.createdAt)).toBe(7 * 86_400_000);
    expect(made.url).toMatch(new RegExp(`^${platform.baseUrl}/invitations/pp_inv_`));
    expect((await owner.client.call('listInvitations', { params: { workspaceId: team.id } })).map((i) => i.id)).toEqual([
      made.invitation.id,
    ]);
    // The key is kept only as a hash.
    const [row] = await platform.deps.sql`select * from invitations where id = ${made.invitation.id}`;
    expect(JSON.stringify(row)).not.toContain(made.url.split('/').pop());
    const member = await join(owner, team.id);
    expect((await refusal(member.client.call('listInvitations', { params: { workspaceId: team.id } }))).body).toMatchObject({
      reason: 'permission',
      action: 'listInvitations',
    });
    expect(
      (await refusal(member.client.call('createInvitation', { params: { workspaceId: team.id }, body: { email: 'x@example.com' } })))
        .status,
    ).toBe(403);
    const bad = await platform.fetch(`/api/workspaces/${team.id}/invitations`, {
      method: 'POST',
      token: owner.token,
      json: { email: `${'a'.repeat(250)}@example.com` },
    });
    expect(bad.status).toBe(400);
  });

  it('refuses with 422 team: someone already in, someone already invited, no seat free, and a personal workspace', async () => {
    const { owner, team } = await teamOf('studio'); // 3 seats
    const member = await join(owner, team.id);
    const invite = (email: string, workspaceId = team.id) =>
      refusal(owner.client.call('createInvitation', { params: { workspaceId }, body: { email } }));
    expect((await invite(member.email)).body).toMatchObject({ reason: 'team', detail: expect.stringContaining('already in the team') });
    await owner.client.call('createInvitation', { params: { workspaceId: team.id }, body: { email: 'third@example.com' } });
    expect((await invite('third@example.com')).body).toMatchObject({ reason: 'team', detail: expect.stringContaining('already invited') });
    expect((await invite('fourth@example.com')).body).toMatchObject({ reason: 'team', detail: expect.stringContaining('seat') });
    const personal = (await owner.client.call('listWorkspaces')).find((w) => w.kind === 'personal')!;
    expect((await invite('x@example.com', personal.id)).body).toMatchObject({ reason: 'team' });
    expect((await owner.client.call('listInvitations', { params: { workspaceId: team.id } })).length).toBe(1);
  });

  it('viewInvitation and acceptInvitation: only the invited person, by id or by the address, once', async () => {
    const { owner, team } = await teamOf();
    const invitee = await platform.person();
    const { invitation, url } = await owner.client.call('createInvitation', {
      params: { workspaceId: team.id },
      body: { email: invitee.email },
    });
    const key = url.split('/').pop()!;
    const someoneElse = await platform.person();
    expect((await refusal(someoneElse.client.call('viewInvitation', { params: { invitationId: invitation.id } }))).status).toBe(404);
    expect((await refusal(someoneElse.client.call('acceptInvitation', { params: { invitationId: key } }))).status).toBe(404);
    expect((await refusal(owner.client.call('viewInvitation', { params: { invitationId: invitation.id } }))).status).toBe(404);
    const view = await invitee.client.call('viewInvitation', { params: { invitationId: key } });
    expect(view).toEqual({
      id: invitation.id,
      workspaceId: team.id,
      workspaceName: team.name,
      invitedBy: 'Olive Owner',
      expiresAt: invitation.expiresAt,
    });
    expect(await invitee.client.call('viewInvitation', { params: { invitationId: invitation.id } })).toEqual(view);
    const joined = await invitee.client.call('acceptInvitation', { params: { invitationId: key } });
    expect(joined).toMatchObject({ id: team.id, role: 'member', active: true });
    expect((await refusal(invitee.client.call('acceptInvitation', { params: { invitationId: key } }))).status).toBe(404);
    expect((await refusal(invitee.client.call('viewInvitation', { params: { invitationId: invitation.id } }))).status).toBe(404);
    expect((await owner.client.call('listMembers', { params: { workspaceId: team.id } })).length).toBe(2);
    expect((await owner.client.call('listInvitations', { params: { workspaceId: team.id } })).length).toBe(0);
    const joinedEvent = (await teamHistory(platform.deps.sql, team.id)).find((e) => e.kind === 'member.join');
    expect(joinedEvent).toMatchObject({ subjectId: await userIdOf(invitee), detail: { invitationId: invitation.id } });
  });

  it('an unverified email, a revoked or an expired invitation is 404; revoking (again too) answers those still waiting', async () => {
    const { owner, team } = await teamOf();
    const a = await platform.person();
    const b = await platform.person();
    const first = await owner.client.call('createInvitation', { params: { workspaceId: team.id }, body: { email: a.email } });
    const second = await owner.client.call('createInvitation', { params: { workspaceId: team.id }, body: { email: b.email } });
    const waiting = await owner.client.call('revokeInvitation', { params: { workspaceId: team.id, invitationId: first.invitation.id } });
    expect(waiting.map((i) => i.id)).toEqual([second.invitation.id]);
    expect((await refusal(a.client.call('acceptInvitation', { params: { invitationId: first.invitation.id } }))).status).toBe(404);
    // Revoking again answers as the first time did and records nothing more; another team's id is 404.
    const again = await owner.client.call('revokeInvitation', { params: { workspaceId: team.id, invitationId: first.invitation.id } });
    expect(again.map((i) => i.id)).toEqual([second.invitation.id]);
    expect((await teamHistory(platform.deps.sql, team.id)).filter((e) => e.kind === 'invitation.revoke')).toHaveLength(1);
    const other = await teamOf();
    const foreign = other.owner.client.call('revokeInvitation', {
      params: { workspaceId: other.team.id, invitationId: second.invitation.id },
    });
    expect((await refusal(foreign)).status).toBe(404);
    await platform.deps.sql`update people set email_verified = false where email = ${b.email}`;
    expect((await refusal(b.client.call('viewInvitation', { params: { invitationId: second.invitation.id } }))).status).toBe(404);
    await platform.deps.sql`update people set email_verified = true where email = ${b.email}`;
    await platform.deps.sql`update invitations set expires_at = now() - interval '1 second' where id = ${second.invitation.id}`;
    expect((await refusal(b.client.call('acceptInvitation', { params: { invitationId: second.invitation.id } }))).status).toBe(404);
    expect(await owner.client.call('listInvitations', { params: { workspaceId: team.id } })).toEqual([]);
  });

  it('two people racing for the last seat, and one accepting twice at once, never make more members than seats', async () => {
    const { owner, team } = await teamOf('team'); // 10 seats while inviting
    const people = await Promise.all([1, 2, 3, 4].map(() => platform.person()));
    const invitations: { id: string }[] = [];
    for (const p of people)
      invitations.push(
        (await owner.client.call('createInvitation', { params: { workspaceId: team.id }, body: { email: p.email } })).invitation,
      );
    await setPlan(platform.deps.sql, team.id, 'studio'); // 3 seats: the owner and two more
    const calls = people.flatMap((p, i) =>
      [0, 1].map(() => platform.fetch(`/api/invitations/${invitations[i].id}/accept`, { method: 'POST', token: p.token })),
    );
    const statuses = (await Promise.all(calls)).map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 200).length).toBe(2);
    expect(statuses.every((s) => s === 200 || s === 404 || s === 422)).toBe(true);
    expect((await owner.client.call('listMembers', { params: { workspaceId: team.id } })).length).toBe(3);
  });
});

describe('deleteTeam', () => {
  it('owners only, confirmed with the name, without a plan or a live project; members keep their own workspaces', async () => {
    const { owner, team } = await teamOf('team');
    const member = await join(owner, team.id);
    const { project } = await deployStaticRoom(platform, owner);
    const del = (who: Person, confirm: string) =>
      refusal(who.client.call('deleteTeam', { params: { workspaceId: team.id }, body: { confirm } }));
    expect((await del(member, team.name)).body).toMatchObject({ reason: 'permission', action: 'deleteTeam' });
    expect((await del(owner, 'not the name')).body).toMatchObject({ reason: 'confirm' });
    expect((await del(owner, team.name)).body).toMatchObject({ reason: 'team', detail: expect.stringContaining('plan') });
    await setPlan(platform.deps.sql, team.id, 'none');
    expect((await del(owner, team.name)).body).toMatchObject({
      reason: 'team',
      detail: `the team still has a live project: ${project.slug}; delete it first`,
    });
    await owner.client.call('deleteProject', { params: { projectId: project.id }, body: { confirm: project.slug } });
    const waiting = await owner.client.call('createProject', { body: { slug: uniqueSlug('dt'), name: 'Never live' } });
    expect(await owner.client.call('deleteTeam', { params: { workspaceId: team.id }, body: { confirm: team.name } })).toEqual({
      deleted: true,
    });
    for (const p of [owner, member]) {
      expect((await p.client.call('listWorkspaces')).map((w) => w.kind)).toEqual(['personal']);
      expect((await p.client.call('whoami')).workspace.kind).toBe('personal');
    }
    const [gone] = await platform.deps.sql<{ deletedAt: Date | null }[]>`select deleted_at from projects where id = ${waiting.id}`;
    expect(gone.deletedAt).not.toBeNull();
    expect((await refusal(owner.client.call('listMembers', { params: { workspaceId: team.id } }))).status).toBe(404);
  });
});

describe('plans per workspace', () => {
  it("the operator sets a team's plan by its workspace id; seats come from it", async () => {
    const { owner, team } = await teamOf(null);
    expect((await owner.client.call('getBilling')).seats).toEqual({ used: 1, allowed: 1 });
    await setPlan(platform.deps.sql, team.id, 'agency');
    const billing = await owner.client.call('getBilling');
    expect(billing).toMatchObject({ plan: 'agency', kind: 'team', status: 'active', seats: { used: 1, allowed: 20 } });
    await owner.client.call('createInvitation', { params: { workspaceId: team.id }, body: { email: 'seat@example.com' } });
    expect((await owner.client.call('getBilling')).seats).toEqual({ used: 2, allowed: 20 });
    await expect(setPlan(platform.deps.sql, (await owner.client.call('listWorkspaces'))[0].id, 'none')).rejects.toThrow(
      /always has a plan/,
    );
  });
});

describe('two people with bearer tokens', () => {
  it('the owner invites, the invitee views and accepts, both see the project; once removed, the next request no longer reaches it', async () => {
    const { owner, team } = await teamOf();
    const project = await owner.client.call('createProject', { body: { slug: uniqueSlug('two'), name: 'Shared demo' } });
    const invitee = await platform.person({ name: 'Ivy Invitee' });
    const { invitation, url } = await owner.client.call('createInvitation', {
      params: { workspaceId: team.id },
      body: { email: invitee.email },
    });
    const key = new URL(url).pathname.split('/').pop()!;
    expect((await invitee.client.call('viewInvitation', { params: { invitationId: key } })).workspaceName).toBe(team.name);
    await invitee.client.call('acceptInvitation', { params: { invitationId: invitation.id } });
    for (const p of [owner, invitee]) expect((await p.client.call('listProjects')).map((x) => x.id)).toContain(project.id);
    await owner.client.call('removeMember', { params: { workspaceId: team.id, userId: await userIdOf(invitee) } });
    expect((await refusal(invitee.client.call('getProject', { params: { projectId: project.id } }))).status).toBe(404);
    expect((await invitee.client.call('listProjects')).map((x) => x.id)).not.toContain(project.id);
    const ownerId = await userIdOf(owner);
    expect((await refusal(owner.client.call('leaveTeam', { params: { workspaceId: team.id } }))).status).toBe(422);
    expect(
      (await refusal(owner.client.call('setMemberRole', { params: { workspaceId: team.id, userId: ownerId }, body: { role: 'member' } })))
        .status,
    ).toBe(422);
  });
});
