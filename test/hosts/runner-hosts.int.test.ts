import { randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CopyView } from '@demo-rooms/contract/runner';
import { loadConfig } from '../../services/core/infra/config.js';
import { copyOriginKey } from '../../services/core/rules/copy-origin-key.js';
import { hashSecret } from '../../services/core/infra/ids.js';
import { createSession } from '../../services/data/room-sessions.sql.js';
import { copyCookie, copyTokens } from '../../services/room/viewer-copies/copy-token.js';
import { createCopyGateway } from '../../services/room/viewer-copies/copy-gateway.js';
import { createStandingCache } from '../../services/room/standing-cache.js';
import { viewCookie, viewTokens } from '../../services/room/content/view-token.js';
import { copyLabelOf } from '../../services/room/origins.js';
import { createLogger } from '../../services/core/infra/log.js';
import { fastifyCookie } from '@fastify/cookie';
import Fastify from 'fastify';
import type { AddressInfo } from 'node:net';
import { createStorage } from '../../services/core/infra/storage.js';
import { settleLostHosts } from '../../services/data/runner-hosts.sql.js';
import { copyNotice } from '../../services/room/viewer-copies/copy-states.js';
import type { RunnerHost } from '../support/hosts/runner-host.js';
import { canRunHosts, startFleet, type Fleet } from '../support/hosts/two-hosts.js';
import { demoBundle } from '../support/runner/demo-bundle.js';
import { seedContainerBuild, seedWorkspace, type Seeded } from '../support/runner/seed.js';
import { eventually } from '../support/runner/test-runner.js';
import { testEnv } from '../support/services.js';

// Several runner hosts on one machine (issue 31, parts 2 and 3; docs/runner.md "Several runner
// hosts"): two hosts, each a network namespace with its own podman service, storage and runner
// process, in a fleet of this file's own; the room's fleet client in the default namespace places
// viewers and reaches each session's host. Caps, queue and usage hold across the hosts through
// Postgres; a host that dies is settled once by the survivor and its viewers start again there.
// Each host runs its own data plane (HAProxy, test/support/hosts/host-dataplane.ts) on its veth
// address, its copy origin: a copy is reached only through its own host's data plane.

const LOST_S = 10;
let f: Fleet;
let bundle: Buffer;
const sessions: string[] = [];

async function seeded(plan: 'solo' | 'pro'): Promise<Seeded> {
  const storage = createStorage(loadConfig(testEnv() as unknown as NodeJS.ProcessEnv));
  return seedContainerBuild(f.sql, storage, bundle, { workspaceId: await seedWorkspace(f.sql, plan) });
}

const enter = (b: Seeded, sessionId: string = randomUUID()) => {
  sessions.push(sessionId);
  return f.runners.client.enter(sessionId, { workspaceId: b.workspaceId, projectId: b.projectId, buildId: b.buildId });
};

const until = (sessionId: string, states: CopyView['state'][], timeoutMs = 60_000) =>
  eventually(
    async () => {
      const v = await f.runners.client.copy(sessionId).catch(() => null);
      return v && states.includes(v.state) ? v : null;
    },
    timeoutMs,
    200,
  );

/** The workspace's copies by host and state, not ended. */
async function spread(workspaceId: string) {
  return f.sql<{ runnerId: string; state: string; n: number }[]>`
    select runner_id, state, count(*)::int as n from runner_copies
    where workspace_id = ${workspaceId} and state <> 'ended' group by runner_id, state`;
}

describe.skipIf(!canRunHosts())('several runner hosts', () => {
  beforeAll(async () => {
    bundle = await demoBundle();
    f = await startFleet({
      hosts: [
        { name: 'a', slots: 3 },
        { name: 'b', slots: 3 },
      ],
      lostS: LOST_S,
      dataplanes: { frameAncestors: 'http://127.0.0.1:8080' },
    });
    await warmHosts();
  }, 900_000);

  /**
   * Each host's fresh engine loads the demo image on its first copy. On a machine running the whole
   * suite that took past 150 s once (a fresh-clone run, 22:40) and past 300 s once (2026-11-28,
   * 02:56): it is done here, one copy on each host, so the tests below time the starts they are
   * about, not the load.
   */
  async function warmHosts() {
    const b = await seeded('pro');
    const warm = [randomUUID(), randomUUID()];
    // One after another: placement puts the second on the host with the most free slots, the other.
    for (const s of warm) await enter(b, s);
    for (const s of warm) await until(s, ['running'], 600_000);
    expect(new Set(await Promise.all(warm.map((s) => f.hostOf(s))))).toEqual(new Set(f.hosts.map((h) => h.id)));
    for (const s of warm) await f.runners.client.leave(s);
    for (const h of f.hosts) await eventually(async () => (await h.containers()).length === 0, 60_000, 200);
  }

  afterAll(async () => {
    await Promise.all(sessions.map((s) => f?.runners.client.leave(s).catch(() => {})));
    await f?.close();
  }, 120_000);

  it('spreads viewers over both hosts, each copy answering on its own host', { timeout: 360_000 }, async () => {
    const b = await seeded('pro');
    const mine = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    // One after another: placement sees each admission before the next (the most free slots).
    for (const s of mine) await enter(b, s);
    try {
      await spreadOver(mine);
    } finally {
      // Whatever happened, the next tests find both hosts' slots free.
      for (const s of mine) await f.runners.client.leave(s).catch(() => {});
    }
  });

  async function spreadOver(mine: string[]) {
    for (const s of mine) await until(s, ['running'], 300_000);
    const hosts = await Promise.all(mine.map((s) => f.hostOf(s)));
    expect(new Set(hosts)).toEqual(new Set(f.hosts.map((h) => h.id)));
    expect(hosts.filter((h) => h === f.hosts[0].id)).toHaveLength(2);
    // Each copy answers through its own host's runner (the room's client picks it per session).
    for (const s of mine) {
      const { outcomes } = await f.runners.client.calls(s, [{ method: 'GET', path: '/' }]);
      expect(outcomes[0]).toMatchObject({ ok: true, status: 200 });
    }
    // And each host's engine holds exactly its two.
    for (const h of f.hosts) expect(await h.containers()).toHaveLength(2);
    for (const s of mine) await f.runners.client.leave(s);
    for (const h of f.hosts) await eventually(async () => (await h.containers()).length === 0, 30_000, 200);
  }

  it('holds the workspace cap across hosts under a burst, and lets the queue in on either host', async () => {
    const b = await seeded('solo'); // three container copies at once, five viewers in the room
    const burst = Array.from({ length: 5 }, () => randomUUID());
    try {
      await burstOf(b, burst);
    } finally {
      await Promise.all(burst.map((s) => f.runners.client.leave(s).catch(() => {})));
    }
  });

  async function burstOf(b: Seeded, burst: string[]) {
    const views = await Promise.all(burst.map((s) => enter(b, s)));
    // The cap is counted under the workspace's lock, whichever host admits: exactly 3 at once.
    const admitted = views.filter((v) => v.state !== 'queued');
    expect(admitted).toHaveLength(3);
    expect(
      views
        .filter((v) => v.state === 'queued')
        .map((v) => v.place)
        .sort(),
    ).toEqual([1, 2]);
    const running = await Promise.all(burst.filter((_, i) => views[i].state !== 'queued').map((s) => until(s, ['running'])));
    expect(running).toHaveLength(3);
    const live = (await spread(b.workspaceId)).filter((r) => r.state !== 'queued').reduce((n, r) => n + r.n, 0);
    expect(live).toBe(3);

    // One leaves: the head of the queue is let in, on whichever host has room; still 3.
    const leaver = burst.find((_, i) => views[i].state !== 'queued')!;
    await f.runners.client.leave(leaver);
    const head = burst[views.findIndex((v) => v.place === 1)];
    await until(head, ['running']);
    const after = await spread(b.workspaceId);
    expect(after.filter((r) => r.state !== 'queued').reduce((n, r) => n + r.n, 0)).toBe(3);
    expect(after.filter((r) => r.state === 'queued').reduce((n, r) => n + r.n, 0)).toBe(1);
  }

  it("reaches a copy on host B only through host B's data plane, with a valid token", async () => {
    const b = await seeded('pro');
    const [hostA, hostB] = f.hosts;
    // Viewers enter until one is placed on B (the host with the most free slots; both have three).
    const mine: string[] = [];
    try {
      let s: { sessionId: string; linkId: string } | null = null;
      for (let i = 0; i < 3 && !s; i++) {
        const one = await linkSession(b);
        mine.push(one.sessionId);
        await enter(b, one.sessionId);
        if ((await f.hostOf(one.sessionId)) === hostB.id) s = one;
      }
      expect(s).not.toBeNull();
      await reachedOnlyThroughItsHost(s!, hostB, hostA);
    } finally {
      for (const id of mine) await f.runners.client.leave(id).catch(() => {});
    }
  });

  async function reachedOnlyThroughItsHost(s: { sessionId: string }, hostB: RunnerHost, hostA: RunnerHost) {
    const view = await until(s.sessionId, ['running']);
    expect(hostB.copyOrigin).toMatch(/^http:\/\/10\.77\./);

    // Its address on B's bridge leads nowhere from the default namespace (where the room runs):
    // no answer, or another machine's (the address is private to B; the default namespace may route it elsewhere).
    const [target] = await f.sql<{ host: string; port: number }[]>`select host, port from runner_copies where id = ${view.copyId}`;
    const bridge = await fetch(`http://${target.host}:${target.port}/headers`, { signal: AbortSignal.timeout(3_000) }).catch(() => null);
    expect(bridge && (await bridge.text()).includes(copyOriginKey(s.sessionId))).toBeFalsy();

    // Through B's data plane with the room's token: the copy answers (once B's runner has routed it).
    const token = tokenFor(s.sessionId, view.copyId!);
    await eventually(async () => (await viaDataplane(hostB, s.sessionId, token, '/probe')).status === 200, 15_000, 200);
    const direct = await viaDataplane(hostB, s.sessionId, token, '/headers');
    expect(direct.headers['x-content-type-options']).toBe('nosniff');
    expect(JSON.parse(direct.body).host).toBe(copyHost(s.sessionId));
    // Through A's, the same token leads nowhere: A has no route for it (its request goes to the room, absent here).
    expect((await viaDataplane(hostA, s.sessionId, token, '/probe')).status).toBe(503);

    // A forged token and an expired one are refused by B's proxy itself.
    const forged = copyTokens(randomBytes(32).toString('hex')).sign({
      lbl: copyOriginKey(s.sessionId),
      sid: s.sessionId,
      cid: view.copyId!,
    });
    const expired = tokenFor(s.sessionId, view.copyId!, Date.now() - 301_000);
    expect((await viaDataplane(hostB, s.sessionId, forged, '/probe')).status).toBe(403);
    expect((await viaDataplane(hostB, s.sessionId, expired, '/probe')).status).toBe(403);
  }

  it("closes a revoked link's open WebSocket through the data plane", async () => {
    const b = await seeded('pro');
    const s = await linkSession(b);
    await enter(b, s.sessionId);
    try {
      await revokedSocketCloses(s);
    } finally {
      await f.runners.client.leave(s.sessionId).catch(() => {});
    }
  });

  async function revokedSocketCloses(s: { sessionId: string; linkId: string }) {
    const view = await until(s.sessionId, ['running']);
    const holder = await hostOfSession(s.sessionId);
    const token = tokenFor(s.sessionId, view.copyId!);
    await eventually(async () => (await viaDataplane(holder, s.sessionId, token, '/probe')).status === 200, 15_000, 200);
    const ws = openSocket(holder, s.sessionId, token);
    await eventually(async () => ws.upgraded(), 10_000, 50);

    const revokedAt = Date.now();
    await f.sql`update links set revoked_at = now() where id = ${s.linkId}`;
    await ws.closed;
    const tookMs = Date.now() - revokedAt;
    console.info(`[runner-hosts] a revoked link's WebSocket through the data plane closed after ${tookMs} ms`);
    // The runner re-reads standings every 2 s (route-sync.ts); the bound is generous on a loaded machine.
    expect(tookMs).toBeLessThan(5_000);
    // And the same (still unexpired) token no longer reaches the copy.
    expect((await viaDataplane(holder, s.sessionId, token, '/probe')).status).toBe(503);
  }

  it("carries the room's copy traffic to the data plane of the copy's host", async () => {
    const b = await seeded('pro');
    // Viewers enter until each host holds one.
    const mine: { sessionId: string; linkId: string }[] = [];
    const byHost = new Map<string, { sessionId: string; linkId: string }>();
    for (let i = 0; i < 4 && byHost.size < 2; i++) {
      const one = await linkSession(b);
      mine.push(one);
      await enter(b, one.sessionId);
      const held = await f.hostOf(one.sessionId);
      if (held && !byHost.has(held)) byHost.set(held, one);
    }
    const [one, two] = [...byHost.values()];
    const [{ slug }] = await f.sql<{ slug: string }[]>`select slug from projects where id = ${b.projectId}`;
    // The room's copy gateway, in the default namespace, given the fleet and the data planes' key
    // (its cookie parser loads when the plugin is first registered, as the room does at its start).
    const app = Fastify();
    await app.register(fastifyCookie);
    await app.close();
    const env = { ...testEnv(), COPY_TOKEN_KEY: f.copyTokenKey } as unknown as NodeJS.ProcessEnv;
    const config = loadConfig(env);
    const gateway = createCopyGateway({
      config,
      sql: f.sql,
      runner: f.runners.client,
      standings: createStandingCache(f.sql),
      log: createLogger({ name: 'hosts-gateway', level: 'silent' }),
    });
    const server = http.createServer((req, res) => {
      const label = req.headers.host!.split('.')[0];
      void gateway.web(req, res, { label, slug, copy: true });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      expect(byHost.size).toBe(2);
      for (const s of [one, two]) await until(s.sessionId, ['running']);
      const port = (server.address() as AddressInfo).port;
      const views = viewTokens(config.APP_SECRET);
      // One copy on each host: both answer through the room, each by way of its own host's data plane.
      for (const s of [one, two]) {
        const label = copyLabelOf(slug, s.sessionId);
        const cookie = `${viewCookie}=${views.sign(s.sessionId, label)}; theirs=1`;
        const seen = await eventually(
          async () => {
            const r = await roomGet(port, `${label}.rooms.localhost`, cookie, '/headers');
            return r.status === 200 ? (JSON.parse(r.body) as Record<string, string>) : null;
          },
          15_000,
          200,
        );
        // The room's hop marker reached the copy and the token did not: HAProxy carried it and took its cookie off.
        expect(seen['x-pp-room-hop']).toBe('1');
        expect(seen.cookie).toBe('theirs=1');
        // A page load too (the data plane would hand a browser's own page load back to the room).
        const page = await roomGet(port, `${label}.rooms.localhost`, cookie, '/page', { 'sec-fetch-dest': 'iframe', accept: 'text/html' });
        expect(page.status).toBe(200);
      }
    } finally {
      server.close();
      await gateway.close();
      for (const s of mine) await f.runners.client.leave(s.sessionId).catch(() => {});
    }
  });

  it('moves the viewers of a host that dies to the other, ending its copies once at its last beat', async () => {
    const b = await seeded('pro');
    const [onA, onB] = [randomUUID(), randomUUID()];
    await enter(b, onA);
    await enter(b, onB);
    await until(onA, ['running']);
    await until(onB, ['running']);
    const [a, hostB] = f.hosts;
    // Equal free slots, then one fewer: the second viewer went to the other host.
    expect(new Set([await f.hostOf(onA), await f.hostOf(onB)])).toEqual(new Set([a.id, hostB.id]));
    const victim = (await f.hostOf(onA)) === a.id ? onA : onB;
    const [lostCopy] = await f.sql<{ id: string }[]>`select id from runner_copies where session_id = ${victim} and state <> 'ended'`;

    const killedAt = Date.now();
    await a.kill();
    // The room is told: the copy is gone because its machine was lost.
    const told = await until(victim, ['gone'], (LOST_S + 30) * 1000);
    expect(told.detail).toBe('host-lost');
    expect(copyNotice(told)).toMatchObject({ title: 'Moved to another machine', waiting: true });
    const [host] = await f.sql<{ seenAt: Date; lostAt: Date | null }[]>`select seen_at, lost_at from runner_hosts where id = ${a.id}`;
    expect(host.lostAt).not.toBeNull();
    expect(host.seenAt.getTime()).toBeLessThanOrEqual(killedAt + 1_000);

    // Usage stopped once, at the last beat; a second settling finds nothing to do.
    const stops = await f.sql<{ at: Date; detail: string }[]>`
      select at, detail from copy_events where copy_id = ${lostCopy.id} and kind in ('stop', 'fail')`;
    expect(stops).toHaveLength(1);
    expect(stops[0]).toMatchObject({ detail: 'host-lost' });
    expect(stops[0].at.getTime()).toBeLessThanOrEqual(killedAt + 1_000);
    expect(await settleLostHosts(f.sql, f.fleet, hostB.id, LOST_S)).toEqual([]);
    const [usage] = await f.sql<{ stops: number }[]>`
      select count(*)::int as stops from copy_events e join runner_copies c on c.id = e.copy_id
      where c.workspace_id = ${b.workspaceId} and e.kind = 'stop'`;
    expect(usage.stops).toBe(1);

    // The viewer's next request gets a fresh copy, on the host that lives.
    const again = await enter(b, victim);
    expect(again.copyId).not.toBe(lostCopy.id);
    await until(victim, ['running']);
    expect(await f.hostOf(victim)).toBe(hostB.id);
    const { outcomes } = await f.runners.client.calls(victim, [{ method: 'GET', path: '/' }]);
    expect(outcomes[0]).toMatchObject({ ok: true, status: 200 });
    for (const s of [onA, onB]) await f.runners.client.leave(s);
  }, 120_000);
});

/** A viewer's session through a link of the seeded project (revocable: sessionStanding). */
async function linkSession(b: Seeded): Promise<{ sessionId: string; linkId: string }> {
  const entryKey = randomUUID();
  const [link] = await f.sql<{ id: string }[]>`
    insert into links (workspace_id, project_id, viewer_name, key_hash)
    values (${b.workspaceId}, ${b.projectId}, 'Ada', ${hashSecret(entryKey)}) returning id`;
  const { session } = await createSession(f.sql, {
    workspaceId: b.workspaceId,
    projectId: b.projectId,
    linkId: link.id,
    entryKey,
    preview: false,
  });
  return { sessionId: session.id, linkId: link.id };
}

async function hostOfSession(sessionId: string): Promise<RunnerHost> {
  const id = await f.hostOf(sessionId);
  return f.hosts.find((h) => h.id === id)!;
}

const tokenFor = (sessionId: string, copyId: string, now = Date.now()) =>
  copyTokens(f.copyTokenKey).sign({ lbl: copyOriginKey(sessionId), sid: sessionId, cid: copyId }, now);

const copyHost = (sessionId: string) => `demo--${copyOriginKey(sessionId)}.rooms.localhost:8080`;

/** A request as the viewer's browser sends it on the copy origin, to one host's data plane (fetch cannot set Host). */
function viaDataplane(h: RunnerHost, sessionId: string, token: string, path: string) {
  const origin = new URL(h.copyOrigin!);
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }>((resolve, reject) => {
    const req = http.get(
      {
        host: origin.hostname,
        port: origin.port,
        path,
        agent: false,
        timeout: 10_000,
        headers: { host: copyHost(sessionId), cookie: `${copyCookie}=${token}`, 'sec-fetch-dest': 'empty' },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
      },
    );
    req.on('timeout', () => req.destroy(new Error('no answer')));
    req.on('error', reject);
  });
}

function openSocket(h: RunnerHost, sessionId: string, token: string) {
  const origin = new URL(h.copyOrigin!);
  const socket = net.connect(Number(origin.port), origin.hostname);
  let answer = '';
  socket.on('data', (d) => (answer += d));
  socket.on('error', () => {});
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.write(
    `GET /ws HTTP/1.1\r\nhost: ${copyHost(sessionId)}\r\nupgrade: websocket\r\nconnection: Upgrade\r\n` +
      `sec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==\r\nsec-websocket-version: 13\r\ncookie: ${copyCookie}=${token}\r\n\r\n`,
  );
  return { upgraded: () => answer.startsWith('HTTP/1.1 101'), closed };
}

/** A request to the room's copy gateway as a browser on the copy origin sends it. */
function roomGet(port: number, host: string, cookie: string, path: string, extra: Record<string, string> = {}) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path, agent: false, headers: { host, cookie, ...extra } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    });
    req.on('error', reject);
  });
}
