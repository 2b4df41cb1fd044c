import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes, type RouteDef } from '@demo-rooms/contract';
import { startPlatform, type Platform } from '../../../test/support/platform.js';
import { uniqueSlug } from '../../../test/support/refusal.js';
import { deployStaticRoom, enterRoom, hit } from '../../../test/support/room.js';
import { setPlan } from '../../ops/ops.service.js';
import { dayOf } from '../../data/event-days.sql.js';

// Issue 16, "Done when": a route-by-verb sweep over every endpoint whose path names an id. An
// outsider, a removed member and a member of another team each get 404 for every project, build,
// upload, link, comment, note, page, invitation, member and workspace id of a team (the same as a
// missing id), and nothing of the team changes.

let platform: Platform;
beforeAll(async () => {
  platform = await startPlatform({ workers: true });
});
afterAll(async () => {
  await platform.close();
});

/**
 * Routes whose ids are not a team's: one's own account, groups, the open community pages, and the
 * active workspace's own figures by date (analytics, statements by month: no id to be foreign).
 */
const notTeamIds = new Set([
  'revokeSession',
  'disconnect',
  'removePasskey',
  'renamePasskey',
  'renameGroup',
  'deleteGroup',
  'communityProfile',
  'communityCover',
  'workspaceAnalytics',
  'usageStatement',
  'usageStatementCsv',
]);

/** A body of the right shape for each route that takes one: the refusal must be for the id, not the body. */
function sampleBody(operation: string, ids: Record<string, string>, teamName: string, slug: string): unknown {
  const manifest = { kind: 'static', name: 'Sweep', output: 'dist', apps: [{ id: 'web', name: 'Web', path: '/', device: 'laptop' }] };
  const samples: Record<string, unknown> = {
    renameWorkspace: { name: 'Taken over' },
    setMemberRole: { role: 'owner' },
    createInvitation: { email: 'sweep@example.com' },
    deleteTeam: { confirm: teamName },
    renameProject: { name: 'Taken over' },
    deleteProject: { confirm: slug },
    startUpload: { kind: 'static', sizeBytes: 10 },
    createBuild: { uploadId: ids.uploadId, manifest },
    createLink: { viewerName: 'Intruder' },
    resolveComment: { resolved: true },
    replyToComment: { body: 'mine now' },
    addPage: { title: 'Intruder', kind: 'markdown', content: 'x' },
    orderApps: { ids: [] },
    orderPages: { ids: [] },
    pauseRoom: { message: 'paused by someone else' },
    setAccess: { requireEmail: true },
    setNextSteps: { steps: [{ kind: 'question' }] },
    setStage: { stage: 'no' },
    setOutcome: { outcome: 'lost' },
    followUp: { on: null, note: null },
    addNote: { body: 'intruder' },
    saveCard: { title: 'Intruder', line: 'Intruder' },
    scanCard: { title: 'Intruder', line: 'Intruder' },
    suggestWording: { title: 'Intruder', line: 'Intruder' },
    checkBuildCover: { path: '/cover.png' },
    coverFromBuild: { path: '/cover.png' },
    appealListing: { message: 'please list it again' },
    updateLink: { viewerCompany: 'Intruder' },
    updateWebhookEndpoint: { enabled: false },
  };
  return samples[operation];
}

describe('a team’s ids, to people outside it', () => {
  it('answer 404 on every route, for an outsider, a removed member and a member of another team; nothing changes', async () => {
    const owner = await platform.person({ name: 'Olive Owner' });
    const team = await owner.client.call('createTeam', { body: { name: `Sweep ${uniqueSlug('t')}` } });
    await setPlan(platform.deps.sql, team.id, 'team');
    const { project, build } = await deployStaticRoom(platform, owner);
    const { link, url } = await owner.client.call('createLink', { params: { projectId: project.id }, body: { viewerName: 'Ada' } });
    const room = await enterRoom(platform, url, { appId: 'web' });
    const comment = await hit(platform, `${room.base}/comments`, {
      method: 'POST',
      jar: room.jar,
      json: {
        appId: 'web',
        screen: '/',
        body: 'A question',
        position: { x: 0.5, y: 0.5 },
        area: null,
        device: 'laptop',
        screenshot: null,
        screenshotNote: null,
      },
    });
    expect(comment.status).toBe(200);
    const note = await owner.client.call('addNote', { params: { linkId: link.id }, body: { body: 'Call on Monday' } });
    const page = await owner.client.call('addPage', {
      params: { projectId: project.id },
      body: { title: 'Pricing', kind: 'markdown', content: '# Pricing' },
    });
    // Issue 34: an endpoint of the team's, and the delivery of its test event (no worker sends it here).
    const { endpoint } = await owner.client.call('createWebhookEndpoint', {
      body: { url: 'https://hooks.example.com/in', kinds: ['link.opened'] },
    });
    const delivery = await owner.client.call('testWebhookEndpoint', { params: { endpointId: endpoint.id }, body: {} });
    const upload = await owner.client.call('startUpload', { params: { projectId: project.id }, body: { kind: 'static', sizeBytes: 10 } });

    const invite = async (email: string) =>
      (await owner.client.call('createInvitation', { params: { workspaceId: team.id }, body: { email } })).invitation;
    const member = await platform.person({ name: 'Mia Member' });
    await member.client.call('acceptInvitation', { params: { invitationId: (await invite(member.email)).id } });
    const memberId = (await member.client.call('whoami')).userId;
    // Each on a plan with every feature, so that the refusal can only be for the id (on Free, a
    // pipeline operation answers 402 whatever the id, as the spec says).
    const removed = await platform.person({ name: 'Rex Removed', plan: 'team' });
    await removed.client.call('acceptInvitation', { params: { invitationId: (await invite(removed.email)).id } });
    await owner.client.call('removeMember', { params: { workspaceId: team.id, userId: (await removed.client.call('whoami')).userId } });
    const waiting = await invite(`waiting-${uniqueSlug('w')}@example.com`);
    const photo = await sharp({ create: { width: 16, height: 16, channels: 3, background: '#123456' } })
      .png()
      .toBuffer();
    expect((await platform.fetch('/api/me/photo', { method: 'PUT', token: member.token, body: photo })).status).toBe(200);

    const otherOwner = await platform.person({ name: 'Otto Other' });
    const otherTeam = await otherOwner.client.call('createTeam', { body: { name: 'Other team' } });
    await setPlan(platform.deps.sql, otherTeam.id, 'team');
    const otherMember = await platform.person({ name: 'Oona Other' });
    const { invitation: toOther } = await otherOwner.client.call('createInvitation', {
      params: { workspaceId: otherTeam.id },
      body: { email: otherMember.email },
    });
    await otherMember.client.call('acceptInvitation', { params: { invitationId: toOther.id } });
    const outsider = await platform.person({ name: 'Stan Stranger', plan: 'team' });

    const today = dayOf(new Date());
    const ids: Record<string, string> = {
      workspaceId: team.id,
      userId: memberId,
      invitationId: waiting.id,
      projectId: project.id,
      buildId: build.id,
      uploadId: upload.uploadId,
      linkId: link.id,
      commentId: comment.json.comment.id,
      noteId: note[0].id,
      pageId: page.id,
      endpointId: endpoint.id,
      deliveryId: delivery.id,
      from: today,
      to: today,
    };
    const before = await snapshot(project.id, team.id, link.id);

    const checked: string[] = [];
    for (const [operation, def] of Object.entries(routes) as [string, RouteDef][]) {
      if (!def.path.includes(':') || def.open || notTeamIds.has(operation)) continue;
      const path = def.path.replace(/:(\w+)/g, (_, name: string) => {
        if (!(name in ids)) throw new Error(`the sweep has no id for :${name} (${operation})`);
        return encodeURIComponent(ids[name]);
      });
      for (const [who, person] of [
        ['outsider', outsider],
        ['removed member', removed],
        ['member of another team', otherMember],
      ] as const) {
        const init = def.raw
          ? { method: def.method, token: person.token, body: Buffer.alloc(10), headers: { 'content-type': 'application/octet-stream' } }
          : {
              method: def.method,
              token: person.token,
              ...(def.body ? { json: sampleBody(operation, ids, team.name, project.slug) ?? {} } : {}),
            };
        const res = await platform.fetch(path, init);
        expect(`${who} ${def.method} ${def.path}: ${res.status} ${JSON.stringify(res.body)}`).toBe(
          `${who} ${def.method} ${def.path}: 404 {"error":"not found"}`,
        );
      }
      checked.push(operation);
    }
    expect(checked.length).toBeGreaterThanOrEqual(55);
    // The same ids reach the team's own member: the 404s above are the scoping, not the ids.
    expect((await member.client.call('getProject', { params: { projectId: project.id } })).id).toBe(project.id);
    expect((await member.client.call('listNotes', { params: { linkId: link.id } })).map((n) => n.id)).toEqual([note[0].id]);
    expect((await member.client.call('getFeedback', { params: { commentId: ids.commentId } })).id).toBe(ids.commentId);
    expect(await snapshot(project.id, team.id, link.id)).toEqual(before);
  });
});

/** What the sweep could have changed, read straight from the tables. */
async function snapshot(projectId: string, workspaceId: string, linkId: string) {
  const sql = platform.deps.sql;
  return {
    project: await sql`select name, deleted_at, live_build_id from projects where id = ${projectId}`,
    room: await sql`select app_order, paused_at, pause_message from rooms where project_id = ${projectId}`,
    workspace: await sql`select name, deleted_at, plan from workspaces where id = ${workspaceId}`,
    members: await sql`select person_id, role from memberships where workspace_id = ${workspaceId} order by person_id`,
    invitations: await sql`select id, revoked_at, used_at from invitations where workspace_id = ${workspaceId} order by id`,
    link: await sql`select revoked_at, placed_stage, outcome, follow_up_on from links where id = ${linkId}`,
    notes: await sql`select id from link_notes where link_id = ${linkId} order by id`,
    comments: await sql`select id, resolved_at, reply from comments where project_id = ${projectId} order by id`,
    builds: await sql`select count(*)::int as n from builds where project_id = ${projectId}`,
    uploads: await sql`select id, state from uploads where project_id = ${projectId} order by id`,
    links: await sql`select count(*)::int as n from links where project_id = ${projectId}`,
    pages: await sql`select id, title from room_pages where project_id = ${projectId} order by id`,
    history: await sql`select count(*)::int as n from project_history where project_id = ${projectId}`,
  };
}
