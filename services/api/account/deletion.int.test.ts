import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlatform, type Platform } from '../../../test/support/platform.js';
import { refusal } from '../../../test/support/refusal.js';
import { deployStaticRoom } from '../../../test/support/room.js';
import { waitFor } from '../../../test/support/wait-for.js';
import { buildWorkers, type WorkersApp } from '../../../workers/app.js';
import { runAccountPurge } from '../../data/account-deletion.sql.js';
import { sweepAccountPurges } from '../../../workers/account-purge/account-purge.job.js';

let platform: Platform;
let purgeWorker: WorkersApp;
beforeAll(async () => {
  platform = await startPlatform({ workers: true });
  purgeWorker = buildWorkers(platform.deps, { queues: ['account.purge'] });
}, 60_000);
afterAll(async () => {
  await purgeWorker.close();
  await platform.close();
});

type Person = Awaited<ReturnType<Platform['person']>>;
const sql = () => platform.deps.sql;
const idOf = async (p: Person) => (await p.client.call('whoami')).userId;
const workspaceOf = async (p: Person) => (await p.client.call('whoami')).workspace.id;

async function team(owner: Person, name = `Team ${crypto.randomUUID().slice(0, 6)}`): Promise<string> {
  const [ws] = await sql()<{ id: string }[]>`insert into workspaces (name, kind, plan) values (${name}, 'team', 'team') returning id`;
  await sql()`insert into memberships (workspace_id, person_id, role) values (${ws.id}, ${await idOf(owner)}, 'owner')`;
  return ws.id;
}

/**
 * Every row of every table in the database whose text mentions the person's id or email, as
 * `table: count`. What an account deletion must bring to nothing (but for what a viewer left).
 */
async function rowsMentioning(personId: string, email: string): Promise<Record<string, number>> {
  const tables = await sql()<{ name: string }[]>`
    select table_name as name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'`;
  const found: Record<string, number> = {};
  for (const { name } of tables) {
    const [row] = await sql().unsafe(`select count(*)::int as n from "${name}" t where t::text like $1 or t::text like $2`, [
      `%${personId}%`,
      `%${email}%`,
    ]);
    if (row.n > 0) found[name] = row.n;
  }
  return found;
}

describe('deletable', () => {
  it('allows a fresh account, whose only workspace is its own and empty', async () => {
    const me = await platform.person();
    expect(await me.client.call('deletable')).toEqual({ allowed: true, blockers: [] });
  });

  it('names each owned workspace that still holds projects or other people; deleted projects and member teams do not count', async () => {
    const me = await platform.person();
    const other = await platform.person();
    const project = await me.client.call('createProject', { body: { slug: `del-${crypto.randomUUID().slice(0, 8)}`, name: 'Kept' } });
    const crowded = await team(me, 'Crowded');
    await sql()`insert into memberships (workspace_id, person_id, role) values (${crowded}, ${await idOf(other)}, 'member')`;
    await team(me, 'Alone');
    const theirs = await team(other);
    await sql()`insert into memberships (workspace_id, person_id, role) values (${theirs}, ${await idOf(me)}, 'member')`;

    const answer = await me.client.call('deletable');
    expect(answer.allowed).toBe(false);
    expect(answer.blockers).toEqual([
      { workspaceId: await workspaceOf(me), name: expect.any(String), kind: 'personal', projects: 1, people: 0 },
      { workspaceId: crowded, name: 'Crowded', kind: 'team', projects: 0, people: 1 },
    ]);

    await me.client.call('deleteProject', { params: { projectId: project.id }, body: { confirm: project.slug } });
    expect((await me.client.call('deletable')).blockers.map((b) => b.name)).toEqual(['Crowded']);
  });
});

describe('deleteAccount', () => {
  it('refuses without the email as confirmation, and while a blocker stands; nothing goes', async () => {
    const me = await platform.person({ kind: 'web' });
    const other = await platform.person();
    const crowded = await team(me);
    await sql()`insert into memberships (workspace_id, person_id, role) values (${crowded}, ${await idOf(other)}, 'member')`;

    const wrong = await refusal(me.browser.call('deleteAccount', { body: { confirm: other.email } }));
    expect(wrong).toMatchObject({ status: 422, body: { reason: 'confirm' } });
    const blocked = await refusal(me.browser.call('deleteAccount', { body: { confirm: me.email } }));
    expect(blocked).toMatchObject({ status: 422, body: { reason: 'blocked', blockers: [{ workspaceId: crowded, people: 1 }] } });
    expect((await me.client.call('whoami')).email).toBe(me.email);

    // Once the team is empty again, the email (in any case) confirms it.
    await sql()`delete from memberships where workspace_id = ${crowded} and person_id = ${await idOf(other)}`;
    expect(await me.browser.call('deleteAccount', { body: { confirm: me.email.toUpperCase() } })).toEqual({ deleted: true });
  });

  it('leaves no row and no object of the person, while what they left in another room stays', { timeout: 60_000 }, async () => {
    const me = await platform.person({ plan: 'studio', name: 'Leaving Person', kind: 'web' });
    const personId = await idOf(me);
    const host = await platform.person({ name: 'Host' });

    // Stored objects: a photo, and a deployed project (build files and upload bytes), deleted since.
    const photo = await sharp({ create: { width: 32, height: 32, channels: 3, background: '#345678' } })
      .png()
      .toBuffer();
    expect((await platform.fetch('/api/me/photo', { method: 'PUT', token: me.token, body: photo })).status).toBe(200);
    const { project, build } = await deployStaticRoom(platform, me);
    await me.client.call('deleteProject', { params: { projectId: project.id }, body: { confirm: project.slug } });
    const [upload] = await sql()<{ id: string }[]>`select id from uploads where project_id = ${project.id}`;
    const prefixes = [`photos/${personId}/`, `builds/${build.id}/`, `uploads/${upload.id}`];
    for (const prefix of prefixes) expect((await platform.deps.storage.list(prefix)).length, prefix).toBeGreaterThan(0);

    // Rows: preferences, feedback, an own empty team, a membership of the host's team, an emailed
    // link, an invitation to them, a passkey, more sessions.
    await me.client.call('welcomeSeen');
    await me.client.call('sendProductFeedback', { body: { body: 'bye' } });
    await team(me, 'Solo team');
    const hostTeam = await team(host, 'Host team');
    await sql()`insert into memberships (workspace_id, person_id, role) values (${hostTeam}, ${personId}, 'member')`;
    await platform.fetch('/api/auth/email', { method: 'POST', json: { email: me.email } });
    await sql()`insert into invitations (workspace_id, email, key_hash, expires_at) values (${hostTeam}, ${me.email}, ${Buffer.from(crypto.randomUUID())}, now() + interval '7 days')`;
    await sql()`insert into passkeys (person_id, credential_id, public_key) values (${personId}, ${`cred-${crypto.randomUUID()}`}, ${Buffer.from('key')})`;

    // What they left as a viewer of the host's room.
    const hostProject = await host.client.call('createProject', {
      body: { slug: `host-${crypto.randomUUID().slice(0, 8)}`, name: 'Host room' },
    });
    const hostWs = await workspaceOf(host);
    await sql()`insert into visits (workspace_id, project_id, viewer_name) values (${hostWs}, ${hostProject.id}, 'Leaving Person')`;
    await sql()`insert into comments (workspace_id, project_id, viewer_name, viewer_email, body) values (${hostWs}, ${hostProject.id}, 'Leaving Person', ${me.email}, 'Nice demo')`;
    expect(Object.keys(await rowsMentioning(personId, me.email)).length).toBeGreaterThan(8);

    expect(await me.browser.call('deleteAccount', { body: { confirm: me.email } })).toEqual({ deleted: true });

    expect((await platform.fetch('/api/me/account', { token: me.token })).status).toBe(401);
    await waitFor(
      'the purge job',
      async () => {
        for (const prefix of prefixes) if ((await platform.deps.storage.list(prefix)).length) return false;
        return true;
      },
      20_000,
    );
    // Only the comment the viewer signed with their email mentions them: it belongs to the host's room.
    expect(await rowsMentioning(personId, me.email)).toEqual({ comments: 1 });

    // The host's room and what the viewer left there are untouched; so is the host's team.
    expect(await sql()`select 1 from visits where project_id = ${hostProject.id} and viewer_name = 'Leaving Person'`).toHaveLength(1);
    expect(await host.client.call('getProject', { params: { projectId: hostProject.id } })).toMatchObject({ id: hostProject.id });
    expect(await sql()`select 1 from workspaces where id = ${hostTeam}`).toHaveLength(1);
    expect(await sql()`select 1 from memberships where workspace_id = ${hostTeam}`).toHaveLength(1);
  });

  it("keeps the deleted account's room addresses and handle from others for 30 days", async () => {
    const me = await platform.person({ plan: 'studio', kind: 'web' });
    const handle = `gone-${crypto.randomUUID().slice(0, 8)}`;
    await me.client.call('setProfile', { body: { handle, bio: null } });
    const project = await me.client.call('createProject', { body: { slug: `gone-${crypto.randomUUID().slice(0, 8)}`, name: 'Was mine' } });
    await me.client.call('deleteProject', { params: { projectId: project.id }, body: { confirm: project.slug } });
    expect(await me.browser.call('deleteAccount', { body: { confirm: me.email } })).toEqual({ deleted: true });
    expect(await sql()`select 1 from projects where slug = ${project.slug}`).toHaveLength(0);

    const next = await platform.person({ plan: 'studio' });
    expect(await refusal(next.client.call('createProject', { body: { slug: project.slug, name: 'Stand-in' } }))).toMatchObject({
      status: 409,
      body: { reason: 'taken' },
    });
    expect(await refusal(next.client.call('setProfile', { body: { handle, bio: null } }))).toMatchObject({
      status: 422,
      body: { reason: 'taken' },
    });
    await sql()`update slug_holds set held_until = now() - interval '1 second' where slug = ${project.slug}`;
    expect((await next.client.call('createProject', { body: { slug: project.slug, name: 'Now free' } })).slug).toBe(project.slug);
  });

  it('a purge whose job was lost is run by the sweep, once; running it again removes nothing', async () => {
    const me = await platform.person();
    const personId = await idOf(me);
    const photo = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#000000' } })
      .png()
      .toBuffer();
    await platform.fetch('/api/me/photo', { method: 'PUT', token: me.token, body: photo });
    // A crash between the commit and the enqueue: the rows are gone, the purge row is left.
    const { deleteAccountRows } = await import('../../data/account-deletion.sql.js');
    const outcome = await deleteAccountRows(sql(), personId, me.email);
    if (!outcome.deleted) throw new Error('not deleted');
    expect((await platform.deps.storage.list(`photos/${personId}/`)).length).toBe(1);
    // Judged by this purge alone: the database is shared with every test file, and another's
    // purge left older than 15 minutes (its platform ran no workers) is the sweep's to run too.
    const pending = async () => (await sql()<{ id: string }[]>`select id from account_purges where id = ${outcome.purgeId}`).length;
    await sweepAccountPurges(platform.deps, 15);
    expect(await pending()).toBe(1); // a fresh purge is its job's, not the sweep's
    expect((await platform.deps.storage.list(`photos/${personId}/`)).length).toBe(1);
    await sql()`update account_purges set created_at = now() - interval '1 hour' where id = ${outcome.purgeId}`;
    await sweepAccountPurges(platform.deps, 15);
    expect(await pending()).toBe(0);
    expect(await platform.deps.storage.list(`photos/${personId}/`)).toEqual([]);
    expect(await runAccountPurge(sql(), outcome.purgeId, { deletePrefix: (p) => platform.deps.storage.deletePrefix(p) })).toBeNull();
  });
});
