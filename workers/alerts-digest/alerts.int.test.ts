import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMailer } from '../../services/core/infra/mailer.js';
import { putAlertSettings } from '../../services/data/alerts.sql.js';
import { startPlatform, type Platform } from '../../test/support/platform.js';
import { deployStaticRoom, enterRoom, hit } from '../../test/support/room.js';
import { startSmtpSink } from '../../test/support/smtp-sink.js';
import { fanOut } from '../events-fanout/fanout.js';
import type { WorkerDeps } from '../worker-deps.js';
import { alertsConsumer } from './alerts.consumer.js';
import { sendDigests } from './digest.job.js';

// Alerts (issue 34): mails through a real SMTP server started here, the in-app list, the
// settings API. Every fan-out and digest run is scoped to this test's own workspace.

let platform: Platform;
let sink: Awaited<ReturnType<typeof startSmtpSink>>;
let deps: WorkerDeps;
beforeAll(async () => {
  sink = await startSmtpSink();
  platform = await startPlatform({ workers: true });
  const { config, sql, storage, log } = platform.deps;
  deps = { config, sql, storage, log, mailer: createMailer({ smtpUrl: sink.url, from: config.MAIL_FROM, dataDir: config.DATA_DIR, log }) };
});
afterAll(async () => {
  await platform.close();
  await sink.close();
});

const comment = (body: string) => ({
  appId: 'web',
  screen: '/',
  body,
  position: { x: 0.2, y: 0.5 },
  area: null,
  device: 'laptop',
  screenshot: null,
  screenshotNote: 'no-answer',
});

/** A builder's room with a link, and a second member of the builder's workspace. */
async function workspace() {
  const owner = await platform.person({ plan: 'solo' });
  const member = await platform.person({ plan: 'solo' });
  const { project } = await deployStaticRoom(platform, owner);
  const { url, link } = await owner.client.call('createLink', {
    params: { projectId: project.id },
    body: { viewerName: 'Grace Prospect' },
  });
  const [{ workspaceId }] = await platform.deps.sql<{ workspaceId: string }[]>`select workspace_id from projects where id = ${project.id}`;
  const [{ id: memberId }] = await platform.deps.sql<{ id: string }[]>`select id from people where email = ${member.email}`;
  await platform.deps.sql`insert into memberships (workspace_id, person_id, role) values (${workspaceId}, ${memberId}, 'member')`;
  const drain = () => fanOut(deps, { consumers: [alertsConsumer], workspaceIds: [workspaceId] });
  return { owner, member, memberId, project, url, link, workspaceId, drain };
}

describe('alert mails', () => {
  it('mail each instant person once per rule (two comments in a row: one mail), digest people only in the digest', async () => {
    const w = await workspace();
    await putAlertSettings(platform.deps.sql, w.workspaceId, w.memberId, {
      'link.opened': 'digest',
      'next_step.answered': 'digest',
      'comment.left': 'digest',
    });
    const room = await enterRoom(platform, w.url, { name: 'Ada Viewer' });
    const post = (path: string, json: unknown) => hit(platform, `${room.base}/${path}`, { method: 'POST', jar: room.jar, json });
    expect((await post('answer', { step: 'yes' })).status).toBe(200);
    expect((await post('comments', comment('The total looks wrong'))).status).toBe(200);
    expect((await post('comments', comment('And the date too'))).status).toBe(200);
    await post('leave', {});
    await w.drain();
    await w.drain();

    const mails = sink.mailsTo(w.owner.email);
    expect(mails.map((m) => m.subject).sort()).toEqual([
      'Room demo: Ada Viewer answered “What happens next”: yes',
      'Room demo: Ada Viewer left a comment: “The total looks wrong”',
      'Room demo: Ada Viewer opened the room for the first time',
    ]);
    const journey = new URL(`/journey/${w.link.id}`, platform.deps.config.publicUrl).href;
    for (const m of mails) {
      expect(m.html).toContain(journey);
      expect(m.text).toContain(journey);
      expect(m.text).toContain('Room demo');
    }
    expect(sink.mailsTo(w.member.email)).toEqual([]);

    // The digest: one mail with all four, then nothing more.
    await sendDigests(deps, { workspaceIds: [w.workspaceId] });
    await sendDigests(deps, { workspaceIds: [w.workspaceId] });
    const digests = sink.mailsTo(w.member.email);
    expect(digests).toHaveLength(1);
    expect(digests[0].subject).toBe('Your demo rooms today: 4 alerts');
    expect(digests[0].text).toContain('Ada Viewer left a comment: “And the date too”');
    expect(sink.mailsTo(w.owner.email)).toHaveLength(3);
  });

  it('never for a bot, a scanner or the builder’s preview', async () => {
    const w = await workspace();
    for (const agent of ['Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)', 'curl/8.5.0']) {
      await hit(platform, new URL(w.url).pathname, { jar: new Map(), headers: { 'user-agent': agent } });
    }
    const preview = (await w.owner.client.call('previewPass', { params: { projectId: w.project.id } })).url;
    const room = await enterRoom(platform, preview);
    await hit(platform, `${room.base}/comments`, { method: 'POST', jar: room.jar, json: comment('From the preview') });
    await w.drain();
    expect(sink.mailsTo(w.owner.email)).toEqual([]);
    expect((await w.owner.client.call('listAlerts', {})).alerts).toEqual([]);
  });
});

describe('the in-app list and the settings', () => {
  it('lists alerts with the unread count, marks them read, and answers 404 for another person’s ids', async () => {
    const w = await workspace();
    const room = await enterRoom(platform, w.url, { name: 'Ada Viewer' });
    await hit(platform, `${room.base}/comments`, { method: 'POST', jar: room.jar, json: comment('Nice') });
    await w.drain();
    const list = await w.owner.client.call('listAlerts', {});
    expect(list.unread).toBe(2);
    expect(list.alerts.map((a) => [a.summary, a.href, a.read])).toEqual([
      ['Ada Viewer left a comment: “Nice”', `/journey/${w.link.id}`, false],
      ['Ada Viewer opened the room for the first time', `/journey/${w.link.id}`, false],
    ]);

    // The member's alert ids are not the owner's: 404, nothing marked.
    const [{ id: membersAlert }] = await platform.deps.sql<{ id: string }[]>`
      select id::text as id from alerts where person_id = ${w.memberId} and workspace_id = ${w.workspaceId} limit 1`;
    const foreign = await platform.fetch('/api/me/alerts/read', {
      method: 'POST',
      token: w.owner.token,
      json: { ids: [list.alerts[0].id, membersAlert] },
    });
    expect(foreign.status).toBe(404);
    expect((await w.owner.client.call('listAlerts', {})).unread).toBe(2);
    for (const ids of [[], Array.from({ length: 51 }, (_, i) => String(i + 1)), ['x']]) {
      expect((await platform.fetch('/api/me/alerts/read', { method: 'POST', token: w.owner.token, json: { ids } })).status).toBe(400);
    }

    expect(await w.owner.client.call('markAlertsRead', { body: { ids: [list.alerts[0].id] } })).toEqual({ unread: 1 });
    const after = await w.owner.client.call('listAlerts', {});
    expect(after.alerts.map((a) => a.read)).toEqual([true, false]);
  });

  it('gets and sets my settings per kind; bad input is a 400 that changes nothing', async () => {
    const w = await workspace();
    const all = { 'link.opened': 'instant', 'next_step.answered': 'instant', 'comment.left': 'instant' };
    expect(await w.owner.client.call('alertSettings', {})).toEqual(all);
    expect(await w.owner.client.call('setAlertSettings', { body: { 'comment.left': 'digest' } })).toEqual({
      ...all,
      'comment.left': 'digest',
    });
    for (const body of [{ 'comment.left': 'sometimes' }, { 'visit.ended': 'off' }, { 'link.opened': 'off', extra: 1 }, []]) {
      expect((await platform.fetch('/api/me/alert-settings', { method: 'POST', token: w.owner.token, json: body })).status).toBe(400);
    }
    expect(await w.owner.client.call('alertSettings', {})).toEqual({ ...all, 'comment.left': 'digest' });
    // The member's own settings are theirs.
    expect(await platform.deps.sql`select 1 from alert_settings where person_id = ${w.memberId}`).toHaveLength(0);
  });
});
