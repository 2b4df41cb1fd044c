import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProductEvent } from '@demo-rooms/contract';
import { startPlatform, type Platform } from '../../test/support/platform.js';
import { refusal, uniqueSlug } from '../../test/support/refusal.js';
import { waitFor } from '../../test/support/wait-for.js';
import { buildWorkers, type WorkersApp } from '../app.js';
import { webhooksConsumer } from './webhook-consumer.js';

// Fair webhooks (security-4 M3), with real Redis, a real webhook.deliver worker at its production
// concurrency (16) and real HTTP receivers on loopback: one workspace's endpoint that accepts and
// never answers, with many deliveries queued, holds at most its workspace's slots, and another
// workspace's delivery still arrives within a second.

/** An HTTP receiver on 127.0.0.1 that answers each request with `answer`, or never when it is null. */
async function receiver(answer: number | null) {
  const hits: { at: number; path: string }[] = [];
  let open = 0;
  let mostOpen = 0;
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    hits.push({ at: Date.now(), path: req.url ?? '' });
    open += 1;
    mostOpen = Math.max(mostOpen, open);
    res.on('close', () => {
      open -= 1;
    });
    req.resume();
    if (answer !== null) req.on('end', () => res.writeHead(answer).end('ok'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    hits,
    mostOpen: () => mostOpen,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

let platform: Platform;
let workers: WorkersApp;
let hanging: Awaited<ReturnType<typeof receiver>>;
let answering: Awaited<ReturnType<typeof receiver>>;
beforeAll(async () => {
  hanging = await receiver(null);
  answering = await receiver(200);
  platform = await startPlatform({
    env: {
      WEBHOOKS_ALLOW_PRIVATE: 'true',
      WEBHOOKS_ATTEMPTS: '1',
      // The production answer timeout: a hanging endpoint holds each attempt this long.
      WEBHOOKS_RESPONSE_TIMEOUT_MS: '10000',
    },
  });
  // No concurrency given: webhook.deliver's own (16), as in production.
  workers = buildWorkers(platform.deps, { queues: ['webhook.deliver'] });
}, 60_000);
afterAll(async () => {
  // The hanging receiver first, so the attempts it holds end now rather than at their timeout.
  await hanging?.close();
  await workers?.close();
  await platform?.close();
  await answering?.close();
}, 60_000);

const consumerDeps = () => ({ sql: platform.deps.sql, queues: platform.deps.queues, config: platform.deps.config });

async function builder() {
  const me = await platform.person({ plan: 'pro' });
  const workspaceId = (await me.client.call('whoami')).workspace.id;
  const project = await me.client.call('createProject', { body: { slug: uniqueSlug('fair'), name: 'Fair' } });
  const { link } = await me.client.call('createLink', { params: { projectId: project.id }, body: { viewerName: 'Ada' } });
  return { me, workspaceId, projectId: project.id, linkId: link.id };
}

function opened(b: { workspaceId: string; projectId: string; linkId: string }): ProductEvent {
  return {
    id: `${Date.now()}${Math.floor(Math.random() * 1e6)}`,
    kind: 'link.opened',
    workspaceId: b.workspaceId,
    projectId: b.projectId,
    linkId: b.linkId,
    occurredAt: new Date().toISOString(),
    viewer: { name: 'Ada', company: null },
    data: { visitId: randomUUID() },
  };
}

describe('webhook deliveries are fair between workspaces', () => {
  it("one workspace's endpoint that never answers does not delay another's delivery by a second", async () => {
    const a = await builder();
    const b = await builder();
    const slow = `/hang-${randomUUID()}`;
    const fast = `/fast-${randomUUID()}`;
    await a.me.client.call('createWebhookEndpoint', { body: { url: hanging.url(slow), kinds: ['link.opened'] } });
    await b.me.client.call('createWebhookEndpoint', { body: { url: answering.url(fast), kinds: ['link.opened'] } });

    // Workspace A: 40 deliveries to an endpoint that accepts and never answers.
    await webhooksConsumer.handle(
      consumerDeps(),
      Array.from({ length: 40 }, () => opened(a)),
    );
    await waitFor('A’s first attempts to hang', async () => hanging.hits.length >= 2);
    // A second for A's other jobs to fill every worker slot, were they allowed to (without the
    // per-workspace slots all 16 hang here, each for the 10 s answer timeout).
    await new Promise((r) => setTimeout(r, 1_000));

    const asked = Date.now();
    await webhooksConsumer.handle(consumerDeps(), [opened(b)]);
    // The receiver's own clock says when it arrived; the polling only waits for it.
    await waitFor('B’s delivery', async () => answering.hits.some((h) => h.path === fast), 15_000, 20);
    const arrived = answering.hits.find((h) => h.path === fast)!.at;
    expect(arrived - asked).toBeLessThan(1_000);
    // A never held more than its workspace's share of attempts at once.
    expect(hanging.mostOpen()).toBeLessThanOrEqual(platform.deps.config.WEBHOOKS_WORKSPACE_CONCURRENCY);
  });

  it('test events and re-sends are limited per workspace (429 rate)', async () => {
    const c = await builder();
    const { endpoint } = await c.me.client.call('createWebhookEndpoint', {
      body: { url: answering.url(`/tests-${randomUUID()}`), kinds: ['link.opened'] },
    });
    const params = { endpointId: endpoint.id };
    for (let i = 0; i < 60; i += 1) await c.me.client.call('testWebhookEndpoint', { params, body: {} });
    const refused = await refusal(c.me.client.call('testWebhookEndpoint', { params, body: {} }));
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ reason: 'rate', retryAfter: expect.any(Number) });
    // Another workspace is not held by this one's count.
    const d = await builder();
    const other = await d.me.client.call('createWebhookEndpoint', { body: { url: answering.url('/other'), kinds: ['link.opened'] } });
    expect((await d.me.client.call('testWebhookEndpoint', { params: { endpointId: other.endpoint.id }, body: {} })).status).toBe('pending');
  });
});
