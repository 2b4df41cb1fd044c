import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../services/core/infra/config.js';
import { createSql, type Sql } from '../../services/core/infra/db.js';
import { createLogger } from '../../services/core/infra/log.js';
import { migrate } from '../../services/core/infra/migrate.js';
import { createStorage } from '../../services/core/infra/storage.js';
import { slugHeld } from '../../services/data/projects.sql.js';
import { setMultipartId } from '../../services/data/uploads.sql.js';
import { ensurePerson } from '../../services/data/people.sql.js';
import { startPlatform } from '../../test/support/platform.js';
import { testEnv } from '../../test/support/services.js';
import { sweep } from './sweep.job.js';
import { screenshotKey } from '../../services/data/comments.sql.js';

// The sweep deletes by age across the whole database, so it runs here on a database of its own,
// made on the test Postgres server for this file and dropped after it: nothing another test file
// wrote can be swept, and nothing here depends on what others left behind. The object store is
// the shared test bucket; every key here is under a fresh id.

const env = testEnv();
const scratchName = `sweep_${randomBytes(6).toString('hex')}`;
const scratchUrl = (() => {
  const url = new URL(env.DATABASE_URL);
  url.pathname = `/${scratchName}`;
  return url.toString();
})();
const admin = createSql(env.DATABASE_URL, { max: 1 });
let sql: Sql;
const config = loadConfig({ ...env, DATABASE_URL: scratchUrl });
const storage = createStorage(config);
const log = createLogger({ name: 'sweep-test', level: 'silent' });
const run = () => sweep({ config, sql, storage, log });

beforeAll(async () => {
  await admin.unsafe(`create database "${scratchName}"`);
  sql = createSql(scratchUrl, { max: 4 });
  await migrate(sql);
});
afterAll(async () => {
  await sql?.end({ timeout: 2 });
  await admin.unsafe(`drop database if exists "${scratchName}" with (force)`);
  await admin.end({ timeout: 2 });
});

const ago = (interval: string) => sql`now() - ${interval}::interval`;

async function workspace(): Promise<{ workspaceId: string; personId: string }> {
  const person = await ensurePerson(sql, `s-${randomUUID()}@example.com`);
  const [row] = await sql<{ workspaceId: string }[]>`select workspace_id from personal_workspaces where person_id = ${person.id}`;
  return { workspaceId: row.workspaceId, personId: person.id };
}

async function project(workspaceId: string, deleted: string | null = null) {
  const slug = `s-${randomUUID().slice(0, 12)}`;
  const [row] = await sql<{ id: string }[]>`
    insert into projects (workspace_id, slug, name, deleted_at)
    values (${workspaceId}, ${slug}, 'Sweep', ${deleted === null ? null : ago(deleted)}) returning id`;
  return { id: row.id, slug };
}

async function upload(workspaceId: string, projectId: string, state: string, age: string, bytes = true) {
  const [row] = await sql<{ id: string }[]>`
    insert into uploads (workspace_id, project_id, kind, size_bytes, state, created_at)
    values (${workspaceId}, ${projectId}, 'static', 5, ${state}, ${ago(age)}) returning id`;
  if (bytes) await storage.put(`uploads/${row.id}`, Buffer.from('bytes'), { size: 5 });
  return row.id;
}

async function build(workspaceId: string, projectId: string, uploadId: string) {
  const id = randomUUID();
  await sql`
    insert into builds (id, workspace_id, project_id, upload_id, kind, manifest, size_bytes)
    values (${id}, ${workspaceId}, ${projectId}, ${uploadId}, 'static', ${sql.json({ kind: 'static' })}, 5)`;
  await storage.put(`builds/${id}/files/index.html`, Buffer.from('<h1>'), { size: 4 });
  return id;
}

const exists = async (table: string, id: string) => (await sql`select 1 from ${sql(table)} where id = ${id}`).length === 1;
const stored = async (key: string) => (await storage.head(key)) !== null;

describe('the sweep', () => {
  it('removes sign-in links, device codes and preview passes a day after they expired or were spent, and long-ended sessions', async () => {
    const { workspaceId, personId } = await workspace();
    const { id: projectId } = await project(workspaceId);
    const hash = () => randomBytes(32);
    const links = await sql<{ id: string }[]>`
      insert into email_sign_ins (email, token_hash, expires_at, used_at) values
        ('a@example.com', ${hash()}, ${ago('2 days')}, null),
        ('b@example.com', ${hash()}, now() + interval '10 minutes', ${ago('2 days')}),
        ('c@example.com', ${hash()}, now() + interval '10 minutes', null),
        ('d@example.com', ${hash()}, ${ago('1 hour')}, null)
      returning id`;
    const devices = await sql<{ id: string }[]>`
      insert into device_logins (device_code_hash, user_code, expires_at) values
        (${hash()}, ${randomUUID()}, ${ago('2 days')}),
        (${hash()}, ${randomUUID()}, now() + interval '10 minutes')
      returning id`;
    const passes = await sql<{ keyHash: Buffer }[]>`
      insert into preview_passes (key_hash, workspace_id, project_id, person_id, expires_at, spent_at) values
        (${hash()}, ${workspaceId}, ${projectId}, ${personId}, ${ago('2 days')}, null),
        (${hash()}, ${workspaceId}, ${projectId}, ${personId}, now() + interval '2 minutes', ${ago('25 hours')}),
        (${hash()}, ${workspaceId}, ${projectId}, ${personId}, now() + interval '2 minutes', null)
      returning key_hash`;
    const sessions = await sql<{ id: string }[]>`
      insert into sessions (person_id, token_hash, kind, expires_at, ended_at) values
        (${personId}, ${hash()}, 'cli', now() + interval '1 day', ${ago('31 days')}),
        (${personId}, ${hash()}, 'cli', now() + interval '1 day', null)
      returning id`;

    const counts = await run();
    expect(counts).toMatchObject({ signInLinks: 2, deviceCodes: 1, previewPasses: 2, sessions: 1 });
    const left = async (table: string, ids: string[]) =>
      (await sql<{ id: string }[]>`select id from ${sql(table)} where id in ${sql(ids)}`).map((r) => r.id).sort();
    expect(
      await left(
        'email_sign_ins',
        links.map((l) => l.id),
      ),
    ).toEqual([links[2].id, links[3].id].sort());
    expect(
      await left(
        'device_logins',
        devices.map((d) => d.id),
      ),
    ).toEqual([devices[1].id]);
    expect(
      await left(
        'sessions',
        sessions.map((s) => s.id),
      ),
    ).toEqual([sessions[1].id]);
    const passesLeft = await sql`select 1 from preview_passes where key_hash in ${sql(passes.map((p) => p.keyHash))}`;
    expect(passesLeft).toHaveLength(1);

    // Idempotent: a second sweep finds nothing more.
    expect(await run()).toMatchObject({ signInLinks: 0, deviceCodes: 0, previewPasses: 0, sessions: 0 });
  });

  // security-3 L2: the open providerStart writes a state per call; only the callback spent them.
  it('removes provider states that expired unspent, and keeps live ones', async () => {
    const { personId } = await workspace();
    const hash = () => randomBytes(32);
    const [expired, live, linking] = [hash(), hash(), hash()];
    await sql`
      insert into oauth_states (state_hash, provider, code_verifier, person_id, expires_at) values
        (${expired}, 'github', 'v', null, ${ago('1 minute')}),
        (${live}, 'google', 'v', null, now() + interval '10 minutes'),
        (${linking}, 'github', 'v', ${personId}, ${ago('3 days')})`;
    expect(await run()).toMatchObject({ oauthStates: 2 });
    const left = await sql<
      { stateHash: Buffer }[]
    >`select state_hash from oauth_states where state_hash in ${sql([expired, live, linking])}`;
    expect(left.map((r) => r.stateHash.toString('hex'))).toEqual([live.toString('hex')]);
    expect(await run()).toMatchObject({ oauthStates: 0 });
  });

  it('drops uploads never received within 24 hours, with their bytes; a stuck PUT gets another day', async () => {
    const { workspaceId } = await workspace();
    const { id: projectId } = await project(workspaceId);
    const stale = await upload(workspaceId, projectId, 'declared', '25 hours');
    const fresh = await upload(workspaceId, projectId, 'declared', '23 hours');
    const receivingRecent = await upload(workspaceId, projectId, 'receiving', '25 hours');
    const receivingStuck = await upload(workspaceId, projectId, 'receiving', '49 hours');
    const building = await upload(workspaceId, projectId, 'building', '25 hours');

    const counts = await run();
    expect(counts.unfinishedUploads).toBe(2);
    for (const gone of [stale, receivingStuck]) {
      expect(await exists('uploads', gone)).toBe(false);
      expect(await stored(`uploads/${gone}`)).toBe(false);
    }
    for (const kept of [fresh, receivingRecent, building]) {
      expect(await exists('uploads', kept)).toBe(true);
      expect(await stored(`uploads/${kept}`)).toBe(true);
    }
    expect((await run()).unfinishedUploads).toBe(0);
  });

  it('aborts the multipart upload of a direct upload abandoned a day ago, with its parts', async () => {
    const { workspaceId } = await workspace();
    const { id: projectId } = await project(workspaceId);
    const abandoned = await upload(workspaceId, projectId, 'declared', '25 hours', false);
    const key = `uploads/${abandoned}`;
    const multipartId = await storage.startMultipart(key, 'application/octet-stream');
    await setMultipartId(sql, abandoned, multipartId);
    const part = Buffer.alloc(5 * 1024 * 1024, 7);
    const url = await storage.presignPart(key, multipartId, { partNumber: 1, size: part.length, expiresIn: 60 });
    const put = await fetch(url, { method: 'PUT', body: part, headers: { 'content-type': 'application/octet-stream' } });
    expect(put.status).toBe(200);
    const etag = put.headers.get('etag')!;

    await run();
    expect(await exists('uploads', abandoned)).toBe(false);
    // Aborted: its parts can no longer be assembled, and no object was made of them.
    await expect(storage.completeMultipart(key, multipartId, [{ partNumber: 1, etag }])).rejects.toThrow();
    expect(await stored(key)).toBe(false);
  });

  it('drops uploads received or refused a day ago that made no build, with their bytes; the attempts made with them keep counting', async () => {
    const { workspaceId } = await workspace();
    const { id: projectId } = await project(workspaceId);
    const receivedOld = await upload(workspaceId, projectId, 'received', '25 hours');
    const refusedOld = await upload(workspaceId, projectId, 'refused', '25 hours');
    const receivedRecent = await upload(workspaceId, projectId, 'received', '23 hours');
    // Declared two days ago, its bytes arrived an hour ago: a day from the bytes, not the declaration.
    const lateBytes = await upload(workspaceId, projectId, 'received', '48 hours');
    await sql`update uploads set received_at = ${ago('1 hour')} where id = ${lateBytes}`;
    const used = await upload(workspaceId, projectId, 'used', '25 hours');
    await build(workspaceId, projectId, used);
    const [attempt] = await sql<{ buildId: string }[]>`
      insert into deploy_reservations (build_id, workspace_id, upload_id, given_up_at)
      values (gen_random_uuid(), ${workspaceId}, ${refusedOld}, now()) returning build_id`;

    expect((await run()).unfinishedUploads).toBe(2);
    for (const gone of [receivedOld, refusedOld]) {
      expect(await exists('uploads', gone)).toBe(false);
      expect(await stored(`uploads/${gone}`)).toBe(false);
    }
    for (const kept of [receivedRecent, lateBytes, used]) {
      expect(await exists('uploads', kept)).toBe(true);
      expect(await stored(`uploads/${kept}`)).toBe(true);
    }
    expect(await sql`select upload_id from deploy_reservations where build_id = ${attempt.buildId}`).toEqual([{ uploadId: null }]);
    expect((await run()).unfinishedUploads).toBe(0);
  });

  it('gives up a day-old deploy whose createBuild died while it waited, and drops its upload left building', async () => {
    const { workspaceId } = await workspace();
    const { id: projectId } = await project(workspaceId);
    const stuck = await upload(workspaceId, projectId, 'building', '26 hours');
    await sql`update uploads set received_at = ${ago('25 hours')} where id = ${stuck}`;
    const [old] = await sql<{ buildId: string }[]>`
      insert into deploy_reservations (build_id, workspace_id, upload_id, reserved_at)
      values (gen_random_uuid(), ${workspaceId}, ${stuck}, ${ago('25 hours')}) returning build_id`;
    // One still building within the day is left alone.
    const building = await upload(workspaceId, projectId, 'building', '2 hours');
    const [recent] = await sql<{ buildId: string }[]>`
      insert into deploy_reservations (build_id, workspace_id, upload_id, reserved_at)
      values (gen_random_uuid(), ${workspaceId}, ${building}, ${ago('1 hour')}) returning build_id`;

    expect((await run()).unfinishedUploads).toBe(1);
    expect([await exists('uploads', stuck), await stored(`uploads/${stuck}`)]).toEqual([false, false]);
    const [givenUp] = await sql<
      { givenUpAt: Date | null; uploadId: string | null }[]
    >`select given_up_at, upload_id from deploy_reservations where build_id = ${old.buildId}`;
    expect(givenUp.givenUpAt).not.toBeNull();
    expect(await exists('uploads', building)).toBe(true);
    expect(await sql`select given_up_at from deploy_reservations where build_id = ${recent.buildId}`).toEqual([{ givenUpAt: null }]);
  });

  it("purges a deleted project's stored bytes once its 30-day slug hold has passed, and frees the slug", async () => {
    const { workspaceId } = await workspace();
    const old = await project(workspaceId, '31 days');
    const recent = await project(workspaceId, '29 days');
    const live = await project(workspaceId);
    const made: Record<string, { uploadId: string; buildId: string }> = {};
    for (const p of [old, recent, live]) {
      const uploadId = await upload(workspaceId, p.id, 'used', '40 days');
      made[p.id] = { uploadId, buildId: await build(workspaceId, p.id, uploadId) };
    }
    await sql`update projects set live_build_id = ${made[live.id].buildId} where id = ${live.id}`;
    // A viewer's comment screenshot of each project.
    for (const p of [old, recent, live]) await storage.put(screenshotKey(p.id, p.id), Buffer.from('png'), { size: 3 });
    expect(await slugHeld(sql, old.slug)).toBe(false);
    expect(await slugHeld(sql, recent.slug)).toBe(true);

    const counts = await run();
    expect(counts).toMatchObject({ purgedProjects: 1, purgedObjects: 3 });
    expect(await stored(`uploads/${made[old.id].uploadId}`)).toBe(false);
    expect(await stored(screenshotKey(old.id, old.id))).toBe(false);
    expect(await stored(`builds/${made[old.id].buildId}/files/index.html`)).toBe(false);
    // The rows stay (links, visits and usage of past months keep their numbers), marked purged.
    expect(await exists('builds', made[old.id].buildId)).toBe(true);
    const [mark] = await sql<{ purgedAt: Date | null }[]>`select purged_at from projects where id = ${old.id}`;
    expect(mark.purgedAt).toBeInstanceOf(Date);
    for (const kept of [recent, live]) {
      expect(await stored(`uploads/${made[kept.id].uploadId}`)).toBe(true);
      expect(await stored(`builds/${made[kept.id].buildId}/files/index.html`)).toBe(true);
      expect(await stored(screenshotKey(kept.id, kept.id))).toBe(true);
    }
    expect(await run()).toMatchObject({ purgedProjects: 0, purgedObjects: 0 });

    // Past the hold, anyone may take the slug again, through the real API.
    const platform = await startPlatform({ env: { DATABASE_URL: scratchUrl } });
    try {
      const { client } = await platform.person();
      const again = await client.call('createProject', { body: { slug: old.slug, name: 'Again' } });
      expect(again.slug).toBe(old.slug);
    } finally {
      await platform.close();
    }
  });

  it('ends visits gone quiet at their last beacon, and leaves open and ended ones as they are', async () => {
    const { workspaceId } = await workspace();
    const { id: projectId } = await project(workspaceId);
    const visit = async (started: string, seen: string, ended: string | null) => {
      const [row] = await sql<{ id: string }[]>`
        insert into visits (workspace_id, project_id, started_at, last_seen_at, ended_at)
        values (${workspaceId}, ${projectId}, ${ago(started)}, ${ago(seen)}, ${ended === null ? null : ago(ended)}) returning id`;
      return row.id;
    };
    const quiet = await visit('1 hour', '50 minutes', null);
    const open = await visit('10 minutes', '3 seconds', null);
    const ended = await visit('2 hours', '100 minutes', '100 minutes');
    await run();
    const rows = await sql<{ id: string; endedAt: Date | null; lastSeenAt: Date; startedAt: Date }[]>`
      select id, ended_at, last_seen_at, started_at from visits where project_id = ${projectId}`;
    const byId = new Map(rows.map((r) => [r.id, r]));
    expect(byId.get(quiet)!.endedAt?.getTime()).toBe(byId.get(quiet)!.lastSeenAt.getTime());
    expect(byId.get(quiet)!.endedAt!.getTime() - byId.get(quiet)!.startedAt.getTime()).toBeGreaterThan(5 * 60_000);
    expect(byId.get(open)!.endedAt).toBeNull();
    expect(byId.get(ended)!.endedAt?.getTime()).toBe(byId.get(ended)!.lastSeenAt.getTime());
  });

  it('can run twice at once: each row is swept by one of them, and nothing fails', async () => {
    const { workspaceId } = await workspace();
    const stale = await Promise.all(
      [1, 2, 3, 4, 5, 6].map(() => project(workspaceId).then((p) => upload(workspaceId, p.id, 'declared', '30 hours'))),
    );
    const purge = await Promise.all([1, 2, 3].map(() => project(workspaceId, '40 days')));
    for (const p of purge) await upload(workspaceId, p.id, 'used', '41 days');
    const [a, b] = await Promise.all([run(), run()]);
    expect(a.unfinishedUploads + b.unfinishedUploads).toBe(stale.length);
    expect(a.purgedProjects + b.purgedProjects).toBe(purge.length);
    for (const id of stale) expect(await exists('uploads', id)).toBe(false);
  });
});
