import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { imageTagOf } from '../images/image-store.js';
import { endWritesOf } from '../copies/end-writes.js';
import { RUNNER_KEY_HEADER, runnerKey } from '@demo-rooms/contract/runner';
import { demoBundle } from '../../test/support/runner/demo-bundle.js';
import { seedContainerBuild, seedWorkspace, type Seeded } from '../../test/support/runner/seed.js';
import { eventually, startTestRunner, type TestRunner } from '../../test/support/runner/test-runner.js';

let runner: TestRunner;
let bundle: Buffer;
beforeAll(async () => {
  bundle = await demoBundle();
  runner = await startTestRunner();
});
afterAll(async () => {
  await runner?.close();
});

const enterBody = (b: Seeded) => ({ workspaceId: b.workspaceId, projectId: b.projectId, buildId: b.buildId });
const fetchJson = async (url: string) => (await fetch(url)).json() as Promise<Record<string, unknown>>;

describe('copies per viewer session', () => {
  it('gives two sessions two copies, each answering with the PORT and HOST it was given', async () => {
    const b = await seedContainerBuild(runner.sql, runner.storage, bundle, {
      workspaceId: await seedWorkspace(runner.sql),
      manifest: { run: { start: ['node', 'server.js'], env: { MOCK_MODE: 'demo' } } },
    });
    const [s1, s2] = [randomUUID(), randomUUID()];
    const first = await runner.client.enter(s1, enterBody(b));
    expect(['starting', 'running']).toContain(first.state);
    await runner.client.enter(s2, enterBody(b));
    const [v1, v2] = [await runner.until(s1, ['running']), await runner.until(s2, ['running'])];
    expect(v1.copyId).not.toBe(v2.copyId);
    const [at1, at2] = [await runner.addressOf(v1.copyId!), await runner.addressOf(v2.copyId!)];
    expect(at1).not.toEqual(at2);
    const [a1, a2] = [await fetchJson(`http://${at1.host}:${at1.port}/`), await fetchJson(`http://${at2.host}:${at2.port}/`)];
    expect(a1).toMatchObject({ port: runner.settings.copy.port, host: '0.0.0.0', mode: 'demo', uid: 1000 });
    expect(a2).toMatchObject({ port: runner.settings.copy.port, host: '0.0.0.0', mode: 'demo', uid: 1000 });
    expect(a1.copy).not.toBe(a2.copy);
    // Entering again is idempotent: the same session gets its same copy.
    expect((await runner.client.enter(s1, enterBody(b))).copyId).toBe(v1.copyId);
    // The copy's record names the container, and the container carries the labels.
    const containers = await runner.containers();
    const c1 = containers.find((c) => c.labels['rooms.copy'] === v1.copyId)!;
    expect(c1.labels).toMatchObject({
      'rooms.build': b.buildId,
      'rooms.project': b.projectId,
      'rooms.workspace': b.workspaceId,
      'rooms.runner': runner.runnerId,
    });
    await runner.client.leave(s1);
    await runner.client.leave(s2);
    expect((await runner.client.copy(s1)).state).toBe('gone');
    await eventually(async () => (await runner.containers()).length === 0);
  });

  it('hardens each copy: non-root, no capabilities, no new privileges, limits, init, read-only root', async () => {
    const b = await seedContainerBuild(runner.sql, runner.storage, bundle, { workspaceId: await seedWorkspace(runner.sql) });
    const s = randomUUID();
    await runner.client.enter(s, enterBody(b));
    const v = await runner.until(s, ['running']);
    const [row] = await runner.sql<{ containerId: string }[]>`select container_id from runner_copies where id = ${v.copyId}`;
    const info = await runner.engine.docker.getContainer(row.containerId).inspect();
    expect(info.Config.User).toBe('1000:1000');
    expect(info.HostConfig.CapDrop?.length).toBeGreaterThan(0);
    expect(info.HostConfig.SecurityOpt).toContain('no-new-privileges');
    expect(info.HostConfig.Memory).toBe(runner.settings.copy.memoryMb * 1024 * 1024);
    expect(info.HostConfig.MemorySwap).toBe(info.HostConfig.Memory);
    expect(info.HostConfig.PidsLimit).toBe(runner.settings.copy.pids);
    // Half a core over a one-second window: a copy's start runs at full speed until it spends it.
    expect(info.HostConfig.CpuQuota! / info.HostConfig.CpuPeriod!).toBe(runner.settings.copy.cpus);
    expect(info.HostConfig.CpuPeriod).toBe(1_000_000);
    expect(info.HostConfig.ReadonlyRootfs).toBe(true);
    expect(info.HostConfig.Init).toBe(true);
    // The leave keeps the engine's record of the run once: as the engine read it, before the removal.
    const keptBefore = endWritesOf(runner.service.ctx.sql).engineRun.stats.items;
    await runner.client.leave(s);
    expect(endWritesOf(runner.service.ctx.sql).engineRun.stats.items - keptBefore).toBe(1);
    const [run] = await runner.sql<{ engineStartedAt: Date | null }[]>`select engine_started_at from runner_copies where id = ${v.copyId}`;
    expect(run.engineStartedAt).toBeInstanceOf(Date);
  });

  it("runs controls and story calls in order on the session's own copy and reports each outcome", async () => {
    const b = await seedContainerBuild(runner.sql, runner.storage, bundle, { workspaceId: await seedWorkspace(runner.sql) });
    const [s1, s2] = [randomUUID(), randomUUID()];
    await runner.client.enter(s1, enterBody(b));
    await runner.client.enter(s2, enterBody(b));
    // Calls wait for a copy still starting, then run in order.
    const first = await runner.client.calls(s1, [
      { method: 'DELETE', path: '/counter' },
      { method: 'POST', path: '/counter', body: { by: 5 } },
      { method: 'POST', path: '/counter' },
      { method: 'GET', path: '/counter' },
    ]);
    expect(first.outcomes.map((o) => [o.call, o.status, o.ok])).toEqual([
      ['DELETE /counter', 200, true],
      ['POST /counter', 200, true],
      ['POST /counter', 200, true],
      ['GET /counter', 200, true],
    ]);
    expect(JSON.parse(first.outcomes[3].body!)).toEqual({ counter: 6 });
    // The other viewer's copy is untouched: each has their own.
    const other = await runner.client.calls(s2, [{ method: 'GET', path: '/counter' }]);
    expect(JSON.parse(other.outcomes[0].body!)).toEqual({ counter: 0 });
    // A failing call stops the ones after it.
    const failing = await runner.client.calls(s1, [
      { method: 'GET', path: '/broken' },
      { method: 'POST', path: '/counter' },
    ]);
    expect(failing.outcomes).toMatchObject([
      { call: 'GET /broken', ok: false, status: 500 },
      { call: 'POST /counter', ok: false, error: 'skipped' },
    ]);
    await runner.client.leave(s1);
    await runner.client.leave(s2);
  });

  it('refuses calls for a session without a running copy, and paths that are not on the copy', async () => {
    await expect(runner.client.calls(randomUUID(), [{ method: 'GET', path: '/' }])).rejects.toMatchObject({ status: 409 });
    await expect(runner.client.calls(randomUUID(), [{ method: 'GET', path: '//evil.example/' }])).rejects.toMatchObject({ status: 400 });
  });

  it('refuses a build of another project, and callers without the runner key', async () => {
    const b = await seedContainerBuild(runner.sql, runner.storage, bundle, { workspaceId: await seedWorkspace(runner.sql) });
    await expect(runner.client.enter(randomUUID(), { ...enterBody(b), projectId: randomUUID() })).rejects.toMatchObject({ status: 404 });
    const res = await fetch(`${runner.baseUrl}/sessions/${randomUUID()}/copy`);
    expect(res.status).toBe(401);
  });

  it('answers what does not fit, and its refusals, with the same bodies', async () => {
    const key = { [RUNNER_KEY_HEADER]: runnerKey(runner.env.APP_SECRET) };
    const ask = async (method: string, path: string, body?: unknown, raw?: string) => {
      const res = await fetch(runner.baseUrl + path, {
        method,
        headers: { ...key, ...(body !== undefined || raw ? { 'content-type': 'application/json' } : {}) },
        body: raw ?? (body !== undefined ? JSON.stringify(body) : undefined),
      });
      return { status: res.status, body: await res.json() };
    };
    const s = randomUUID();
    const b = await seedContainerBuild(runner.sql, runner.storage, bundle, { workspaceId: await seedWorkspace(runner.sql) });
    const invalid = (detail: string) => ({ status: 400, body: { error: 'invalid', detail } });
    expect(await ask('POST', '/sessions/not-a-uuid/copy', enterBody(b))).toEqual(invalid('sessionId: Invalid UUID'));
    // No body reads as an empty one: each missing field is named.
    expect(await ask('POST', `/sessions/${s}/copy`)).toEqual(
      invalid(['workspaceId', 'projectId', 'buildId'].map((f) => `${f}: Invalid input: expected string, received undefined`).join('; ')),
    );
    expect(await ask('POST', `/sessions/${s}/copy`, { ...enterBody(b), roomViewerCap: -1 })).toEqual(
      invalid('roomViewerCap: Too small: expected number to be >=0'),
    );
    expect(await ask('GET', `/sessions/${s}/copy?wait=99999999`)).toEqual(invalid('wait: Too big: expected number to be <=30000'));
    expect(await ask('POST', `/sessions/${s}/calls`, { calls: [{ method: 'GET', path: '//evil.example/' }] })).toEqual(
      invalid('calls.0.path: Invalid string: must match pattern /^\\/(?!\\/)\\S*$/'),
    );
    expect(await ask('POST', `/sessions/${s}/calls`, undefined, '{"calls":')).toEqual(
      invalid("Body is not valid JSON but content-type is set to 'application/json'"),
    );
    expect(await ask('POST', `/builds/${randomUUID()}/prepare?wait=x`)).toEqual(
      invalid('wait: Invalid input: expected number, received NaN'),
    );
    // Refusals keep their status and words, and the copy when there is one to show.
    expect(await ask('POST', `/sessions/${s}/calls`, { calls: [{ method: 'GET', path: '/' }] })).toEqual({
      status: 409,
      body: { error: 'the session has no running copy', copy: { state: 'gone', copyId: null, version: 'none' } },
    });
    expect(await ask('POST', `/builds/${randomUUID()}/prepare`)).toEqual({ status: 404, body: { error: 'no such build' } });
    const keyless = await fetch(`${runner.baseUrl}/sessions/${s}/copy`);
    expect({ status: keyless.status, body: await keyless.json() }).toEqual({ status: 401, body: { error: 'runner key required' } });
  });

  it('moves a viewer to the new build when the project went live with another one', async () => {
    const ws = await seedWorkspace(runner.sql);
    const b1 = await seedContainerBuild(runner.sql, runner.storage, bundle, { workspaceId: ws });
    const b2 = { ...b1, buildId: (await seedContainerBuild(runner.sql, runner.storage, bundle, { workspaceId: ws })).buildId };
    await runner.sql`update builds set project_id = ${b1.projectId} where id = ${b2.buildId}`;
    const s = randomUUID();
    await runner.client.enter(s, enterBody(b1));
    const first = await runner.until(s, ['running']);
    const moved = await runner.client.enter(s, enterBody(b2));
    expect(moved.copyId).not.toBe(first.copyId);
    const [old] = await runner.sql<{ endReason: string }[]>`select end_reason from runner_copies where id = ${first.copyId}`;
    expect(old.endReason).toBe('build-changed');
    await runner.until(s, ['running']);
    await runner.client.leave(s);
  });
});

describe('images', () => {
  it("loads a build's image once however many ask at the same time, retagged to the build", async () => {
    const b = await seedContainerBuild(runner.sql, runner.storage, bundle, { workspaceId: await seedWorkspace(runner.sql) });
    const engine = runner.engine;
    const load = engine.loadImage.bind(engine);
    let loads = 0;
    engine.loadImage = (archive) => {
      loads++;
      return load(archive);
    };
    try {
      const ids = await Promise.all(Array.from({ length: 5 }, () => runner.service.ctx.images.ensure(b.buildId)));
      expect(new Set(ids).size).toBe(1);
      expect(loads).toBe(1);
    } finally {
      engine.loadImage = load;
    }
    const image = await engine.docker.getImage(imageTagOf(b.buildId)).inspect();
    expect(image.RepoTags).toContain(imageTagOf(b.buildId));
    // The bundle's own tag (the builder's `podman build -t …`) was not applied.
    expect(image.RepoTags?.some((t) => t.startsWith('localhost/runner-demo-build'))).toBe(false);
  });
});

describe('the platform spend limit', () => {
  it("answers 'spend' (live demo paused for the platform) once the month's container spend reaches the limit", async () => {
    const capped = await startTestRunner({ RUNNER_SPEND_LIMIT_USD: '0' });
    try {
      const b = await seedContainerBuild(capped.sql, capped.storage, bundle, { workspaceId: await seedWorkspace(capped.sql) });
      expect(await capped.client.enter(randomUUID(), enterBody(b))).toMatchObject({ state: 'spend', copyId: null });
      expect(await capped.containers()).toHaveLength(0);
    } finally {
      await capped.close();
    }
  });
});
