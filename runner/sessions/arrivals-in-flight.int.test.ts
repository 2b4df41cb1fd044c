import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { arrivalsDeferred } from '../../services/core/infra/metrics.js';
import { demoBundle } from '../../test/support/runner/demo-bundle.js';
import { seedContainerBuild, seedWorkspace } from '../../test/support/runner/seed.js';
import { eventually, startTestRunner, type TestRunner } from '../../test/support/runner/test-runner.js';

// A host's line of undecided newcomers is bounded (RUNNER_ARRIVALS_IN_FLIGHT): past it a newcomer
// is told at once to ask again (high demand, no place, nothing recorded), as JupyterHub answers a
// crowd 429 with a jittered Retry-After, rather than wait in a line of calls that could outlast
// its timeout. A session that has a copy is never turned away so, and asking again gets in.
let runner: TestRunner;
beforeAll(async () => {
  runner = await startTestRunner({ RUNNER_ARRIVALS_IN_FLIGHT: '1' });
});
afterAll(async () => {
  await runner?.close();
});

const deferredSoFar = async () => (await arrivalsDeferred.get()).values[0]?.value ?? 0;

it('tells newcomers past the line to ask again, records nothing for them, and lets them in when they do', async () => {
  const b = await seedContainerBuild(runner.sql, runner.storage, await demoBundle(), { workspaceId: await seedWorkspace(runner.sql) });
  await runner.service.ctx.images.ensure(b.buildId);
  const body = { workspaceId: b.workspaceId, projectId: b.projectId, buildId: b.buildId, fresh: true };
  const before = await deferredSoFar();
  const sessions = Array.from({ length: 4 }, () => randomUUID());
  const views = await Promise.all(sessions.map((s) => runner.client.enter(s, body)));

  const busy = sessions.filter((_, i) => views[i].version === 'busy');
  expect(busy.length).toBeGreaterThan(0);
  expect(await deferredSoFar()).toBe(before + busy.length);
  for (const [i, v] of views.entries()) {
    if (v.version !== 'busy') continue;
    expect(v).toMatchObject({ state: 'queued', copyId: null });
    expect(v.place).toBeUndefined();
    expect(v.retryMs).toBeGreaterThanOrEqual(1_000);
    expect(v.retryMs).toBeLessThanOrEqual(3_000);
    const [{ n }] = await runner.sql<{ n: number }[]>`select count(*)::int as n from runner_copies where session_id = ${sessions[i]}`;
    expect(n).toBe(0);
  }

  // Asked again one at a time, as their rooms do after retryMs: each is let in.
  for (const s of busy) {
    const again = await runner.client.enter(s, body);
    expect(['starting', 'running', 'queued']).toContain(again.state);
    expect(again.copyId).toBeTruthy();
  }
  // A session that has a copy is answered with it however long the line (no hint: an existing session).
  const mine = sessions[views.findIndex((v) => v.version !== 'busy')];
  const newcomer = randomUUID();
  sessions.push(newcomer);
  const held = await Promise.all([runner.client.enter(mine, { ...body, fresh: false }), runner.client.enter(newcomer, body)]);
  expect(held[0].copyId).toBeTruthy();
  expect(held[0].version).not.toBe('busy');

  for (const s of sessions) await runner.client.leave(s);
  await eventually(async () => (await runner.containers()).filter((c) => c.labels['rooms.build'] === b.buildId).length === 0);
});
