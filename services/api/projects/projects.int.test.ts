import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlatform, type Platform } from '../../../test/support/platform.js';
import { refusal, uniqueSlug } from '../../../test/support/refusal.js';

let platform: Platform;
beforeAll(async () => {
  platform = await startPlatform();
});
afterAll(async () => {
  await platform.close();
});

const slug = () => uniqueSlug('p');

describe('projects', () => {
  it('creates (201), lists newest first, gets and renames without touching slug or address', async () => {
    const { client } = await platform.person();
    const a = await client.call('createProject', { body: { slug: slug(), name: 'First' } });
    const b = await client.call('createProject', { body: { slug: slug(), name: 'Second' } });
    expect(a).toMatchObject({ name: 'First', visibility: 'private', liveBuildId: null });
    expect(a.roomUrl).toContain(a.slug);
    expect((await client.call('listProjects')).map((p) => p.id)).toEqual([b.id, a.id]);
    expect(await client.call('getProject', { params: { projectId: a.id } })).toEqual(a);
    const renamed = await client.call('renameProject', { params: { projectId: a.id }, body: { name: 'Renamed' } });
    expect(renamed).toEqual({ ...a, name: 'Renamed' });
  });

  it('refuses slugs by format, reserved, impersonation and banned with 422, and taken with 409', async () => {
    const { client } = await platform.person({ plan: 'pro' });
    for (const [s, reason] of [
      ['Bad_Slug', 'format'],
      ['a--b', 'format'],
      ['admin', 'reserved'],
      ['paypal-login', 'impersonation'],
      ['scam-demo', 'banned'],
    ]) {
      const r = await refusal(client.call('createProject', { body: { slug: s, name: 'x' } }));
      expect(r.status).toBe(422);
      expect(r.body).toMatchObject({ error: `refused: ${reason}`, reason });
    }
    const s = slug();
    await client.call('createProject', { body: { slug: s, name: 'x' } });
    const other = await platform.person();
    const r = await refusal(other.client.call('createProject', { body: { slug: s, name: 'y' } }));
    expect(r).toMatchObject({ status: 409, body: { error: 'refused: taken', reason: 'taken' } });
  });

  it("holds a deleted project's slug for 30 days, then frees it", async () => {
    const { client } = await platform.person();
    const s = slug();
    const p = await client.call('createProject', { body: { slug: s, name: 'x' } });
    const wrong = await refusal(client.call('deleteProject', { params: { projectId: p.id }, body: { confirm: 'nope' } }));
    expect(wrong).toMatchObject({ status: 422, body: { reason: 'confirm' } });
    expect(await client.call('deleteProject', { params: { projectId: p.id }, body: { confirm: s } })).toEqual({ deleted: true });
    expect(await client.call('listProjects')).toEqual([]);
    expect((await refusal(client.call('getProject', { params: { projectId: p.id } }))).status).toBe(404);
    expect((await refusal(client.call('createProject', { body: { slug: s, name: 'again' } }))).status).toBe(409);
    await platform.deps.sql`update projects set deleted_at = now() - interval '31 days' where id = ${p.id}`;
    expect((await client.call('createProject', { body: { slug: s, name: 'again' } })).slug).toBe(s);
  });

  it("refuses beyond the plan's projects with 402 projects, naming the upgrade", async () => {
    const { client } = await platform.person();
    for (let i = 0; i < 3; i++) await client.call('createProject', { body: { slug: slug(), name: `n${i}` } });
    const r = await refusal(client.call('createProject', { body: { slug: slug(), name: 'one too many' } }));
    expect(r).toEqual({
      status: 402,
      body: { error: expect.any(String), reason: 'limit', limit: 'projects', plan: 'free', upgrade: 'solo' },
    });
  });

  it('never exceeds the plan under racing creations', async () => {
    const { client } = await platform.person();
    const results = await Promise.allSettled(
      Array.from({ length: 8 }, (_, i) => client.call('createProject', { body: { slug: slug(), name: `r${i}` } })),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(3);
    expect(await client.call('listProjects')).toHaveLength(3);
  });

  it("answers 404 for another workspace's project and for an id that is not a UUID", async () => {
    const owner = await platform.person();
    const p = await owner.client.call('createProject', { body: { slug: slug(), name: 'mine' } });
    const stranger = await platform.person();
    for (const call of [
      () => stranger.client.call('getProject', { params: { projectId: p.id } }),
      () => stranger.client.call('renameProject', { params: { projectId: p.id }, body: { name: 'stolen' } }),
      () => stranger.client.call('deleteProject', { params: { projectId: p.id }, body: { confirm: p.slug } }),
      () => owner.client.call('getProject', { params: { projectId: 'not-a-uuid' } }),
    ]) {
      expect(await refusal(call())).toEqual({ status: 404, body: { error: 'not found' } });
    }
    expect((await owner.client.call('getProject', { params: { projectId: p.id } })).name).toBe('mine');
  });

  it('answers 400 invalid for a name out of bounds and changes nothing', async () => {
    const { client, token } = await platform.person();
    const p = await client.call('createProject', { body: { slug: slug(), name: 'ok' } });
    const res = await platform.fetch(`/api/projects/${p.id}/name`, { method: 'POST', token, json: { name: 'x'.repeat(81) } });
    expect(res.status).toBe(400);
    expect(res.body.issues[0].path).toBe('name');
    expect((await client.call('getProject', { params: { projectId: p.id } })).name).toBe('ok');
  });
});
