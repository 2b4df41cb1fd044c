import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlatform, type Platform } from '../../../test/support/platform.js';
import { uniqueSlug } from '../../../test/support/refusal.js';
import { deployStaticRoom } from '../../../test/support/room.js';
import { setPlan } from '../../ops/ops.service.js';

// Security review 3, L7: notices are written to each member of a team; one who is removed, or
// leaves, reads none of the team's any more (project names, reasons), and cannot mark them read.

let platform: Platform;
beforeAll(async () => {
  platform = await startPlatform({ workers: true });
});
afterAll(async () => {
  await platform.close();
});

describe("a team's notices", () => {
  it('are read by its members only: a removed member and one who left read none of them', async () => {
    const owner = await platform.person({ name: 'Olive Owner' });
    const team = await owner.client.call('createTeam', { body: { name: `Notices ${uniqueSlug('t')}` } });
    await setPlan(platform.deps.sql, team.id, 'team');
    const join = async (name: string) => {
      const p = await platform.person({ name });
      const { invitation } = await owner.client.call('createInvitation', { params: { workspaceId: team.id }, body: { email: p.email } });
      await p.client.call('acceptInvitation', { params: { invitationId: invitation.id } });
      return p;
    };
    const removed = await join('Rex Removed');
    const leaver = await join('Lee Leaver');
    const stays = await join('Mia Member');

    // A card blocked at listing: a notice for every member, naming the project.
    const { project } = await deployStaticRoom(platform, owner);
    const params = { projectId: project.id };
    await owner.client.call('saveCard', { params, body: { title: 'Paypa1 login', line: 'Verify your account to keep access.' } });
    expect((await owner.client.call('listProject', { params })).status).toBe('blocked');
    for (const p of [owner, removed, leaver, stays])
      expect(await p.client.call('listNotices')).toEqual([expect.objectContaining({ kind: 'listing.blocked' })]);

    await owner.client.call('removeMember', { params: { workspaceId: team.id, userId: (await removed.client.call('whoami')).userId } });
    await leaver.client.call('leaveTeam', { params: { workspaceId: team.id } });
    for (const gone of [removed, leaver]) {
      expect(await gone.client.call('listNotices')).toEqual([]);
      expect(await gone.client.call('readNotices', { body: {} })).toEqual({ read: 0 });
    }
    expect(await stays.client.call('listNotices')).toHaveLength(1);
    expect(await stays.client.call('readNotices', { body: {} })).toEqual({ read: 1 });
  });
});
