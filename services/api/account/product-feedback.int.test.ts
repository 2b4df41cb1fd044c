import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlatform, type Platform } from '../../../test/support/platform.js';
import { refusal } from '../../../test/support/refusal.js';
import { createClient } from '@demo-rooms/contract';
import { planOf } from '../../core/rules/plans.js';

let platform: Platform;
beforeAll(async () => {
  platform = await startPlatform();
});
afterAll(async () => {
  await platform.close();
});

const rowsOf = (email: string) => platform.deps.sql<
  { workspaceId: string; body: string; page: string | null; appVersion: string | null }[]
>`
  select f.workspace_id, f.body, f.page, f.app_version from product_feedback f join people p on p.id = f.person_id
  where p.email = ${email} order by f.created_at`;

describe('sendProductFeedback', () => {
  it('files the note under the caller and the active workspace, whatever the body says', async () => {
    const me = await platform.person();
    const other = await platform.person();
    const account = await me.client.call('whoami');
    const body = { body: 'The deploy button hides on small screens.', page: '/projects', appVersion: '1.4.2' };
    const sent = await platform.fetch('/api/product-feedback', {
      method: 'POST',
      token: me.token,
      json: { ...body, personId: (await other.client.call('whoami')).userId, workspaceId: crypto.randomUUID() },
    });
    expect(sent.status).toBe(200);
    expect(sent.body).toEqual({ id: expect.any(String), createdAt: expect.any(String) });
    expect(await rowsOf(me.email)).toEqual([{ workspaceId: account.workspace.id, ...body }]);
    expect(await rowsOf(other.email)).toEqual([]);
  });

  it('takes a body of 1 to 2000 characters, a page of at most 300 and a version of at most 64', async () => {
    const me = await platform.person();
    expect(
      (await me.client.call('sendProductFeedback', { body: { body: 'x'.repeat(2000), page: 'p'.repeat(300), appVersion: 'v'.repeat(64) } }))
        .id,
    ).toBeTruthy();
    expect((await me.client.call('sendProductFeedback', { body: { body: 'x' } })).id).toBeTruthy();
    for (const json of [
      { body: '' },
      { body: ' \n\t ' },
      { body: 'x'.repeat(2001) },
      { body: 'ok', page: 'p'.repeat(301) },
      { body: 'ok', appVersion: 'v'.repeat(65) },
      {},
    ]) {
      expect((await platform.fetch('/api/product-feedback', { method: 'POST', token: me.token, json })).status).toBe(400);
    }
    expect(await rowsOf(me.email)).toHaveLength(2);
  });

  it("answers 429 past the plan's hourly number, counted across api processes", async () => {
    // A second api process sharing the first one's Redis keys, as replicas do.
    const second = await startPlatform({ env: { QUEUE_PREFIX: platform.deps.queues.prefix } });
    try {
      const me = await platform.person();
      const there = createClient({ baseUrl: second.baseUrl, token: me.token });
      const perHour = planOf('free').feedbackPerHour;
      for (let i = 0; i < perHour; i++) await (i % 2 ? there : me.client).call('sendProductFeedback', { body: { body: `note ${i}` } });
      const r = await refusal(there.call('sendProductFeedback', { body: { body: 'one too many' } }));
      expect(r.status).toBe(429);
      expect(r.body).toMatchObject({ reason: 'rate', retryAfter: expect.any(Number) });
      expect((await refusal(me.client.call('sendProductFeedback', { body: { body: 'still too many' } }))).status).toBe(429);
      expect(await rowsOf(me.email)).toHaveLength(perHour);
      // Another person has their own allowance.
      expect((await (await platform.person()).client.call('sendProductFeedback', { body: { body: 'mine' } })).id).toBeTruthy();
    } finally {
      await second.close();
    }
  });

  it("allows a paid plan's larger number", async () => {
    const me = await platform.person({ plan: 'studio' });
    const perHour = planOf('studio').feedbackPerHour;
    expect(perHour).toBeGreaterThan(planOf('free').feedbackPerHour);
    for (let i = 0; i < perHour; i++) await me.client.call('sendProductFeedback', { body: { body: `note ${i}` } });
    expect((await refusal(me.client.call('sendProductFeedback', { body: { body: 'over' } }))).status).toBe(429);
  });
});
