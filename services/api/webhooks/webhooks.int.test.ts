import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProductEvent, WebhookDelivery } from '@demo-rooms/contract';
import { createQueues } from '../../core/infra/queues.js';
import { emitProductEvent } from '../../data/product-events.sql.js';
import { deleteOldDeliveries } from '../../data/webhooks.sql.js';
import { startHttpsReceiver, type HttpsReceiver } from '../../../test/support/https-receiver.js';
import { startPlatform, type Platform } from '../../../test/support/platform.js';
import { refusal, uniqueSlug } from '../../../test/support/refusal.js';
import { readdir, readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { loadConfig } from '../../core/infra/config.js';
import { testEnv } from '../../../test/support/services.js';
import { localWebhooks } from '../../../infra/local/local-webhooks.mjs';
import { waitFor } from '../../../test/support/wait-for.js';
import { buildWorkers, type WorkersApp } from '../../../workers/app.js';
import { consumers } from '../../../workers/events-fanout/consumers.js';
import { fanOut } from '../../../workers/events-fanout/fanout.js';
import { webhooksConsumer } from '../../../workers/webhook-deliver/webhook-consumer.js';
import { pastMonth, seedCopy } from '../../../test/support/usage-seed.js';
import { usage } from '../../../workers/usage-rollup/usage.job.js';
import type { WorkerDeps } from '../../../workers/worker-deps.js';

// Signed webhooks end to end (issue 34): endpoints through the API, product events handed to the
// webhooks consumer as events.fanout would, delivered by a real webhook.deliver worker to a real
// HTTPS receiver on loopback (trusted through WEBHOOKS_EXTRA_CA_FILE; local development's setting
// lets it be 127.0.0.1). Back-off is a few milliseconds here: the schedule itself is config.

let receiver: HttpsReceiver;
let platform: Platform;
let workers: WorkersApp;
beforeAll(async () => {
  receiver = await startHttpsReceiver();
  platform = await startPlatform({
    env: {
      WEBHOOKS_ALLOW_PRIVATE: 'true',
      WEBHOOKS_EXTRA_CA_FILE: receiver.caFile,
      WEBHOOKS_ATTEMPTS: '3',
      WEBHOOKS_BACKOFF_MS: '20',
      WEBHOOKS_RESPONSE_TIMEOUT_MS: '1000',
      WEBHOOKS_DISABLE_AFTER: '2',
    },
  });
  workers = buildWorkers(platform.deps, { queues: ['webhook.deliver'], concurrency: 4 });
}, 60_000);
afterAll(async () => {
  await workers?.close();
  await platform?.close();
  await receiver?.close();
});

type Person = Awaited<ReturnType<Platform['person']>>;
const consumerDeps = () => ({ sql: platform.deps.sql, queues: platform.deps.queues, config: platform.deps.config });

/** A pro workspace with a project and a link: the ids a real event carries. */
async function builder() {
  const me = await platform.person({ plan: 'pro' });
  const workspaceId = (await me.client.call('whoami')).workspace.id;
  const project = await me.client.call('createProject', { body: { slug: uniqueSlug('wh'), name: 'Webhooks' } });
  const { link } = await me.client.call('createLink', { params: { projectId: project.id }, body: { viewerName: 'Ada' } });
  return { me, workspaceId, projectId: project.id, linkId: link.id };
}

function openedEvent(b: { workspaceId: string; projectId: string; linkId: string }): ProductEvent {
  return {
    id: String(Date.now() * 1000 + Math.floor(Math.random() * 1000)),
    kind: 'link.opened',
    workspaceId: b.workspaceId,
    projectId: b.projectId,
    linkId: b.linkId,
    occurredAt: new Date().toISOString(),
    viewer: { name: 'Ada', company: 'Analytical Engines' },
    data: { visitId: randomUUID() },
  };
}

async function endpoint(me: Person, path: string, kinds: ProductEvent['kind'][] = ['link.opened']) {
  return me.client.call('createWebhookEndpoint', { body: { url: receiver.url(path), kinds, description: path } });
}

/** The endpoint's deliveries once `done` holds for them. */
const deliveriesWhen = (me: Person, endpointId: string, what: string, done: (ds: WebhookDelivery[]) => boolean) =>
  waitFor(what, async () => {
    const ds = await me.client.call('listWebhookDeliveries', { params: { endpointId } });
    return done(ds) ? ds : null;
  });

describe('webhook endpoints', () => {
  it('are created with a secret shown once, listed, changed, rotated and deleted', async () => {
    const { me } = await builder();
    const created = await endpoint(me, `/crud-${randomUUID()}`, ['link.opened', 'comment.left']);
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(created.endpoint).toMatchObject({ enabled: true, kinds: ['link.opened', 'comment.left'], disabledReason: null });
    const listed = await me.client.call('listWebhookEndpoints');
    expect(listed).toEqual([created.endpoint]);
    expect(JSON.stringify(listed)).not.toContain('whsec_');

    const params = { endpointId: created.endpoint.id };
    const changed = await me.client.call('updateWebhookEndpoint', {
      params,
      body: { kinds: ['visit.ended'], enabled: false, description: 'CRM' },
    });
    expect(changed).toMatchObject({ kinds: ['visit.ended'], enabled: false, description: 'CRM', url: created.endpoint.url });
    const rotated = await me.client.call('rotateWebhookSecret', { params });
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(created.secret);
    expect(await me.client.call('deleteWebhookEndpoint', { params })).toEqual({ deleted: true });
    expect(await me.client.call('listWebhookEndpoints')).toEqual([]);
    expect((await refusal(me.client.call('deleteWebhookEndpoint', { params }))).status).toBe(404);
  });

  it('refuse bad input with 400 and change nothing', async () => {
    const { me } = await builder();
    const good = { url: receiver.url('/bad'), kinds: ['link.opened' as const] };
    for (const body of [
      { ...good, url: 'ftp://example.com/in' },
      { ...good, url: 'https://user:pw@example.com/in' },
      { ...good, url: `https://example.com/${'x'.repeat(2000)}` },
      { ...good, kinds: [] },
      { ...good, kinds: ['link.opened', 'link.opened'] },
      { ...good, kinds: ['link.exploded'] },
      { ...good, description: 'd'.repeat(201) },
    ]) {
      const res = await platform.fetch('/api/webhooks', { method: 'POST', token: me.token, json: body });
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
    }
    expect(await me.client.call('listWebhookEndpoints')).toEqual([]);
    const { endpoint: e } = await me.client.call('createWebhookEndpoint', { body: good });
    const res = await platform.fetch(`/api/webhooks/${e.id}/update`, { method: 'POST', token: me.token, json: { kinds: ['nope'] } });
    expect(res.status).toBe(400);
    expect(await me.client.call('listWebhookEndpoints')).toEqual([e]);
  });

  it("answer 404 for another workspace's endpoint or delivery, as for a missing one", async () => {
    const owner = await builder();
    const stranger = await platform.person({ plan: 'pro' });
    const { endpoint: e } = await endpoint(owner.me, `/mine-${randomUUID()}`);
    const delivery = await owner.me.client.call('testWebhookEndpoint', { params: { endpointId: e.id }, body: {} });
    const params = { endpointId: e.id };
    for (const call of [
      () => stranger.client.call('updateWebhookEndpoint', { params, body: { enabled: false } }),
      () => stranger.client.call('deleteWebhookEndpoint', { params }),
      () => stranger.client.call('rotateWebhookSecret', { params }),
      () => stranger.client.call('listWebhookDeliveries', { params }),
      () => stranger.client.call('testWebhookEndpoint', { params, body: {} }),
      () => stranger.client.call('resendWebhookDelivery', { params: { deliveryId: delivery.id } }),
      () => stranger.client.call('listWebhookDeliveries', { params: { endpointId: 'not-a-uuid' } }),
    ]) {
      expect((await refusal(call())).status).toBe(404);
    }
    expect(await owner.me.client.call('listWebhookEndpoints')).toMatchObject([{ id: e.id, enabled: true }]);
  });

  it("hold to the plan's number of endpoints (402 webhooks), and none on Free", async () => {
    const free = await platform.person();
    const refused = await refusal(
      free.client.call('createWebhookEndpoint', { body: { url: receiver.url('/free'), kinds: ['link.opened'] } }),
    );
    expect(refused.status).toBe(402);
    expect(refused.body).toMatchObject({ limit: 'webhooks', plan: 'free', upgrade: 'solo' });
  });
});

describe('webhook deliveries', () => {
  it('arrive signed, verify with the library, carry the event, and are made once per event', async () => {
    const b = await builder();
    const path = `/signed-${randomUUID()}`;
    const created = await endpoint(b.me, path);
    const event = openedEvent(b);
    await webhooksConsumer.handle(consumerDeps(), [event]);
    // The same batch again (a fan-out retried): no second delivery, no second send.
    await webhooksConsumer.handle(consumerDeps(), [event]);
    const [d] = await deliveriesWhen(b.me, created.endpoint.id, 'the delivery to succeed', (ds) => ds[0]?.status === 'succeeded');
    expect(d).toMatchObject({ eventId: event.id, kind: 'link.opened', series: 1, attempts: [{ attempt: 1, ok: true, statusCode: 200 }] });

    const [got] = receiver.received(path);
    expect(receiver.received(path)).toHaveLength(1);
    expect(got.headers['webhook-id']).toBe(`msg_${event.id}`);
    const verified = new Webhook(created.secret).verify(got.body, {
      'webhook-id': String(got.headers['webhook-id']),
      'webhook-timestamp': String(got.headers['webhook-timestamp']),
      'webhook-signature': String(got.headers['webhook-signature']),
    });
    expect(verified).toEqual({ type: 'link.opened', timestamp: event.occurredAt, data: event });
    // A secret from before a rotation no longer verifies what is sent after it.
    const rotated = await b.me.client.call('rotateWebhookSecret', { params: { endpointId: created.endpoint.id } });
    expect(() => new Webhook(rotated.secret).verify(got.body, got.headers as Record<string, string>)).toThrow();
  });

  it('reach the endpoint from the product-events outbox through events.fanout, once', async () => {
    const b = await builder();
    const path = `/outbox-${randomUUID()}`;
    const created = await endpoint(b.me, path, ['comment.left']);
    await emitProductEvent(platform.deps.sql, {
      workspaceId: b.workspaceId,
      projectId: b.projectId,
      linkId: b.linkId,
      kind: 'comment.left',
      viewerName: 'Ada',
      viewerCompany: 'Analytical Engines',
      data: { commentId: randomUUID(), body: 'Can it import from Sheets?' },
    });
    // The registry's own webhooks consumer, on this workspace's events alone (the outbox is shared).
    const registered = consumers.filter((c) => c.name === 'webhooks');
    expect(registered).toHaveLength(1);
    expect(await fanOut(platform.deps, { consumers: registered, workspaceIds: [b.workspaceId] })).toEqual({ webhooks: 1 });
    expect(await fanOut(platform.deps, { consumers: registered, workspaceIds: [b.workspaceId] })).toEqual({ webhooks: 0 });
    await deliveriesWhen(b.me, created.endpoint.id, 'the delivery to succeed', (ds) => ds[0]?.status === 'succeeded');
    const [got] = receiver.received(path);
    expect(receiver.received(path)).toHaveLength(1);
    const body = new Webhook(created.secret).verify(got.body, {
      'webhook-id': String(got.headers['webhook-id']),
      'webhook-timestamp': String(got.headers['webhook-timestamp']),
      'webhook-signature': String(got.headers['webhook-signature']),
    }) as { type: string; data: ProductEvent };
    expect(body.type).toBe('comment.left');
    expect(body.data).toMatchObject({ kind: 'comment.left', linkId: b.linkId, viewer: { name: 'Ada', company: 'Analytical Engines' } });
  });

  it("tell a workspace's month closing (usage.month_closed, issue 46) once, with its statement's numbers", async () => {
    const b = await builder();
    const path = `/month-${randomUUID()}`;
    const created = await endpoint(b.me, path, ['usage.month_closed']);
    const m = pastMonth(8, 9);
    await seedCopy(platform.deps.sql, b.workspaceId, b.projectId, [
      ['start', m.at(3_600_000)],
      ['stop', m.at(5_400_000)],
    ]);
    const rollUp = () =>
      usage(platform.deps as unknown as WorkerDeps, { data: { month: m.name }, updateProgress: async () => {} } as never);
    await rollUp();
    await rollUp();
    const registered = consumers.filter((c) => c.name === 'webhooks');
    expect(await fanOut(platform.deps, { consumers: registered, workspaceIds: [b.workspaceId] })).toEqual({ webhooks: 1 });
    await deliveriesWhen(b.me, created.endpoint.id, 'the delivery to succeed', (ds) => ds[0]?.status === 'succeeded');
    const [got] = receiver.received(path);
    const body = new Webhook(created.secret).verify(got.body, got.headers as Record<string, string>) as {
      type: string;
      data: ProductEvent;
    };
    const statement = await b.me.client.call('usageStatement', { params: { month: m.name } });
    expect(body).toMatchObject({
      type: 'usage.month_closed',
      data: {
        kind: 'usage.month_closed',
        workspaceId: b.workspaceId,
        projectId: null,
        data: { month: m.name, copies: 1, containerSeconds: 1800, containerHours: statement.containerHours, spendUsd: statement.spendUsd },
      },
    });
    expect(receiver.received(path)).toHaveLength(1);
  });

  it('go only to enabled endpoints of the workspace that hear the kind', async () => {
    const b = await builder();
    const other = await builder();
    const hears = `/hears-${randomUUID()}`;
    const deaf = `/deaf-${randomUUID()}`;
    const off = `/off-${randomUUID()}`;
    const foreign = `/foreign-${randomUUID()}`;
    await endpoint(b.me, hears);
    await endpoint(b.me, deaf, ['comment.left']);
    const offEndpoint = await endpoint(b.me, off);
    await b.me.client.call('updateWebhookEndpoint', { params: { endpointId: offEndpoint.endpoint.id }, body: { enabled: false } });
    await endpoint(other.me, foreign);
    await webhooksConsumer.handle(consumerDeps(), [openedEvent(b)]);
    await waitFor('the delivery', async () => receiver.received(hears).length === 1);
    expect(receiver.received(deaf)).toHaveLength(0);
    expect(receiver.received(off)).toHaveLength(0);
    expect(receiver.received(foreign)).toHaveLength(0);
  });

  it('retry after a 500 and after a timeout, logging each attempt, until one succeeds', async () => {
    const b = await builder();
    const flaky = `/flaky-${randomUUID()}`;
    const slow = `/slow-${randomUUID()}`;
    receiver.answer(flaky, (n) => (n === 0 ? { status: 500, body: 'try later' } : { status: 204 }));
    receiver.answer(slow, (n) => (n === 0 ? { status: 200, delayMs: 5_000 } : { status: 200 }));
    const e1 = await endpoint(b.me, flaky);
    const e2 = await endpoint(b.me, slow);
    await webhooksConsumer.handle(consumerDeps(), [openedEvent(b)]);

    const [d1] = await deliveriesWhen(b.me, e1.endpoint.id, 'the flaky delivery', (ds) => ds[0]?.status === 'succeeded');
    expect(d1.attempts).toMatchObject([
      { series: 1, attempt: 2, ok: true, statusCode: 204 },
      { series: 1, attempt: 1, ok: false, statusCode: 500, error: 'HTTP 500', bodyExcerpt: 'try later' },
    ]);
    const [d2] = await deliveriesWhen(b.me, e2.endpoint.id, 'the slow delivery', (ds) => ds[0]?.status === 'succeeded');
    expect(d2.attempts).toMatchObject([
      { attempt: 2, ok: true, statusCode: 200 },
      { attempt: 1, ok: false, statusCode: null, error: 'timeout' },
    ]);
    // Every attempt carries the same webhook-id, so a receiver can drop a repeat.
    const ids = receiver.received(flaky).map((r) => r.headers['webhook-id']);
    expect(new Set(ids).size).toBe(1);
  });

  it('follow no redirect: a 3xx fails the attempt and its target is never asked', async () => {
    const b = await builder();
    const moved = `/moved-${randomUUID()}`;
    const target = `/target-${randomUUID()}`;
    receiver.answer(moved, () => ({ status: 307, headers: { location: receiver.url(target) } }));
    const e = await endpoint(b.me, moved);
    await webhooksConsumer.handle(consumerDeps(), [openedEvent(b)]);
    const [d] = await deliveriesWhen(b.me, e.endpoint.id, 'the series to fail', (ds) => ds[0]?.status === 'failed');
    expect(d.attempts).toHaveLength(3);
    expect(d.attempts.every((a) => a.statusCode === 307 && a.error === 'redirect (not followed)')).toBe(true);
    expect(receiver.received(target)).toHaveLength(0);
  });

  it('can be re-sent from the log (a new series with the same webhook-id) and test events are sent on demand', async () => {
    const b = await builder();
    const path = `/resend-${randomUUID()}`;
    const e = await endpoint(b.me, path, ['comment.left']);
    const test = await b.me.client.call('testWebhookEndpoint', { params: { endpointId: e.endpoint.id }, body: {} });
    expect(test).toMatchObject({ kind: 'comment.left', status: 'pending', series: 1 });
    const [done] = await deliveriesWhen(b.me, e.endpoint.id, 'the test delivery', (ds) => ds[0]?.status === 'succeeded');
    const first = JSON.parse(receiver.received(path)[0].body);
    expect(first).toMatchObject({ type: 'comment.left', data: { kind: 'comment.left', workspaceId: b.workspaceId } });
    expect(first.data.id).toMatch(/^test_/);

    const again = await b.me.client.call('resendWebhookDelivery', { params: { deliveryId: done.id } });
    expect(again).toMatchObject({ id: done.id, series: 2, status: 'pending' });
    const [resent] = await deliveriesWhen(b.me, e.endpoint.id, 'the re-send', (ds) => ds[0]?.status === 'succeeded' && ds[0].series === 2);
    expect(resent.attempts.map((a) => [a.series, a.attempt, a.ok])).toEqual([
      [2, 1, true],
      [1, 1, true],
    ]);
    const hits = receiver.received(path);
    expect(hits).toHaveLength(2);
    expect(hits[1].headers['webhook-id']).toBe(hits[0].headers['webhook-id']);
    expect(hits[1].body).toBe(hits[0].body);
  });

  it('switch an endpoint off after deliveries in a row fail every attempt, with a notice, and it is shown as disabled', async () => {
    const b = await builder();
    const path = `/down-${randomUUID()}`;
    receiver.answer(path, () => ({ status: 503 }));
    const e = await endpoint(b.me, path);
    for (let i = 0; i < 2; i += 1) {
      await webhooksConsumer.handle(consumerDeps(), [openedEvent(b)]);
      await deliveriesWhen(b.me, e.endpoint.id, `delivery ${i + 1} to fail`, (ds) => ds.length === i + 1 && ds[0].status === 'failed');
    }
    const [shown] = await b.me.client.call('listWebhookEndpoints');
    expect(shown).toMatchObject({ id: e.endpoint.id, enabled: false, disabledReason: expect.stringMatching(/failed/) });
    const notices = await b.me.client.call('listNotices');
    expect(notices.filter((n) => n.kind === 'webhook.disabled')).toMatchObject([{ href: '/webhooks' }]);
    // Switched off, it hears nothing more, and nothing is re-sent to it until switched back on.
    await webhooksConsumer.handle(consumerDeps(), [openedEvent(b)]);
    expect(receiver.received(path)).toHaveLength(6);
    const [last] = await b.me.client.call('listWebhookDeliveries', { params: { endpointId: e.endpoint.id } });
    expect((await refusal(b.me.client.call('resendWebhookDelivery', { params: { deliveryId: last.id } }))).status).toBe(422);
    const back = await b.me.client.call('updateWebhookEndpoint', { params: { endpointId: e.endpoint.id }, body: { enabled: true } });
    expect(back).toMatchObject({ enabled: true, disabledReason: null });
  });

  it('leave the log after a month once finished, never while pending', async () => {
    const b = await builder();
    const path = `/old-${randomUUID()}`;
    const e = await endpoint(b.me, path);
    await webhooksConsumer.handle(consumerDeps(), [openedEvent(b)]);
    const [done] = await deliveriesWhen(b.me, e.endpoint.id, 'the delivery', (ds) => ds[0]?.status === 'succeeded');
    const sql = platform.deps.sql;
    await sql`update webhook_deliveries set updated_at = now() - interval '31 days' where id = ${done.id}`;
    await deleteOldDeliveries(sql);
    expect(await b.me.client.call('listWebhookDeliveries', { params: { endpointId: e.endpoint.id } })).toEqual([]);
  });

  it('refuse a private address at send time when local development does not allow it', async () => {
    const b = await builder();
    const path = `/strict-${randomUUID()}`;
    const e = await endpoint(b.me, path);
    // A second worker, on queues of its own, with the setting off: as production would run.
    const config = { ...platform.deps.config, WEBHOOKS_ALLOW_PRIVATE: false, QUEUE_PREFIX: `t-${randomUUID().slice(0, 8)}` };
    const queues = createQueues(config);
    const strict = buildWorkers({ ...platform.deps, config }, { queues: ['webhook.deliver'] });
    try {
      await webhooksConsumer.handle({ sql: platform.deps.sql, queues, config }, [openedEvent(b)]);
      const [d] = await deliveriesWhen(b.me, e.endpoint.id, 'the refused series', (ds) => ds[0]?.status === 'failed');
      expect(d.attempts).toHaveLength(3);
      for (const a of d.attempts) expect(a).toMatchObject({ ok: false, statusCode: null, error: expect.stringMatching(/^refused: /) });
      expect(receiver.received(path)).toHaveLength(0);
    } finally {
      await strict.close();
      await queues.close();
    }
  });
});

/** The mails the local outbox wrote to `email`, whole. */
async function outboxOf(dataDir: string, email: string): Promise<string[]> {
  const dir = join(dataDir, 'outbox');
  const mine = (await readdir(dir)).filter((f) => f.endsWith('.txt') && f.includes(email.replace(/[^a-z0-9@.-]/gi, '_')));
  return Promise.all(mine.map((f) => readFile(join(dir, f), 'utf8')));
}

describe('who may add an endpoint (security-4 L5)', () => {
  it('only an owner; every owner is told by a notice and a mail; one left behind by a removed person shows for review', async () => {
    const owner = await platform.person({ plan: 'pro' });
    const team = await owner.client.call('createTeam', { body: { name: `Team ${uniqueSlug('wh')}` } });
    await platform.deps.sql`update workspaces set plan = 'team' where id = ${team.id}`;
    const mate = await platform.person();
    const { invitation } = await owner.client.call('createInvitation', { params: { workspaceId: team.id }, body: { email: mate.email } });
    await mate.client.call('acceptInvitation', { params: { invitationId: invitation.id } });
    const mateId = (await mate.client.call('whoami')).userId;
    const body = { url: receiver.url(`/team-${randomUUID()}`), kinds: ['link.opened' as const] };

    // A member (not an owner) cannot add one: 403 permission, and nothing is made.
    expect(await refusal(mate.client.call('createWebhookEndpoint', { body }))).toMatchObject({
      status: 403,
      body: { reason: 'permission', action: 'createWebhookEndpoint' },
    });
    expect(await owner.client.call('listWebhookEndpoints')).toEqual([]);

    // Made an owner, they can; both owners hear of it, in the app and by mail.
    await owner.client.call('setMemberRole', { params: { workspaceId: team.id, userId: mateId }, body: { role: 'owner' } });
    const { endpoint: made } = await mate.client.call('createWebhookEndpoint', { body });
    expect(made).toMatchObject({ createdBy: mateId, creatorLeft: false });
    for (const p of [owner, mate]) {
      const notices = await p.client.call('listNotices');
      expect(notices.filter((n) => n.kind === 'webhook.added')).toMatchObject([
        { title: 'A webhook endpoint was added', href: '/webhooks', body: expect.stringContaining(body.url) },
      ]);
      const mails = await outboxOf(platform.deps.config.DATA_DIR, p.email);
      expect(mails.filter((m) => m.includes('Subject: A webhook endpoint was added') && m.includes(body.url))).toHaveLength(1);
    }

    // Removed, their endpoint stays (it is the workspace's) and shows as left behind, for review.
    await owner.client.call('setMemberRole', { params: { workspaceId: team.id, userId: mateId }, body: { role: 'member' } });
    await owner.client.call('removeMember', { params: { workspaceId: team.id, userId: mateId } });
    expect(await owner.client.call('listWebhookEndpoints')).toMatchObject([{ id: made.id, createdBy: mateId, creatorLeft: true }]);
  });
});

describe('local development: a webhook receiver on this machine (issue 45)', () => {
  it('npm start sets the switch and an http://127.0.0.1 receiver gets a signed event; without it, refused; never in production', async () => {
    const got: { headers: Record<string, string>; body: string }[] = [];
    const local = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        got.push({ headers: req.headers as Record<string, string>, body: Buffer.concat(chunks).toString('utf8') });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => local.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(local.address() as AddressInfo).port}/hook`;
    try {
      // What `npm start` gives the processes (infra/local/start.mjs), and what production gets.
      const dev = localWebhooks({ NODE_ENV: 'development' });
      expect(dev.value).toBe('true');
      expect(dev.line).toMatch(/local receivers allowed/);
      expect(localWebhooks({ NODE_ENV: 'production', WEBHOOKS_ALLOW_PRIVATE: 'true' }).value).toBe('false');
      expect(() => loadConfig({ ...testEnv(), NODE_ENV: 'production', WEBHOOKS_ALLOW_PRIVATE: 'true' })).toThrow(/WEBHOOKS_ALLOW_PRIVATE/);

      // With the switch (this file's platform runs with npm start's value): delivered, signed.
      expect(platform.deps.config.WEBHOOKS_ALLOW_PRIVATE).toBe(dev.value === 'true');
      const b = await builder();
      const created = await b.me.client.call('createWebhookEndpoint', { body: { url, kinds: ['link.opened'] } });
      const event = openedEvent(b);
      await webhooksConsumer.handle(consumerDeps(), [event]);
      await waitFor('the local delivery', async () => got.length === 1);
      const verified = new Webhook(created.secret).verify(got[0].body, {
        'webhook-id': got[0].headers['webhook-id'],
        'webhook-timestamp': got[0].headers['webhook-timestamp'],
        'webhook-signature': got[0].headers['webhook-signature'],
      });
      expect(verified).toMatchObject({ type: 'link.opened', data: { id: event.id } });

      // Without it (production's rules): refused with the spec's 400, naming the url.
      const strict = await startPlatform({
        env: { WEBHOOKS_ALLOW_PRIVATE: localWebhooks({ NODE_ENV: 'development', WEBHOOKS_ALLOW_PRIVATE: 'false' }).value },
      });
      try {
        const me = await strict.person({ plan: 'pro' });
        const res = await strict.fetch('/api/webhooks', { method: 'POST', token: me.token, json: { url, kinds: ['link.opened'] } });
        expect(res.status).toBe(400);
        expect(res.body).toMatchObject({ error: 'invalid', issues: [{ path: 'url', message: 'must start with https://' }] });
        const https = await strict.fetch('/api/webhooks', {
          method: 'POST',
          token: me.token,
          json: { url: url.replace('http:', 'https:'), kinds: ['link.opened'] },
        });
        expect(https.body).toMatchObject({ issues: [{ path: 'url', message: 'must not be a private, loopback or link-local address' }] });
      } finally {
        await strict.close();
      }
    } finally {
      local.closeAllConnections();
      await new Promise<void>((resolve) => local.close(() => resolve()));
    }
  });
});
