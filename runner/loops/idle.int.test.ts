import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoBundle } from '../../test/support/runner/demo-bundle.js';
import { seedContainerBuild, seedWorkspace, type Seeded } from '../../test/support/runner/seed.js';
import { eventually, startTestRunner, type TestRunner } from '../../test/support/runner/test-runner.js';

// Idle tiers: paused while away, resumed on return, removed after a long absence; a maximum age.
let runner: TestRunner;
let bundle: Buffer;
let build: Seeded;
beforeAll(async () => {
  bundle = await demoBundle();
  runner = await startTestRunner({ RUNNER_IDLE_PAUSE_S: '1', RUNNER_IDLE_REMOVE_S: '3', RUNNER_MAX_AGE_S: '600' });
  build = await seedContainerBuild(runner.sql, runner.storage, bundle, { workspaceId: await seedWorkspace(runner.sql) });
});
afterAll(async () => {
  await runner?.close();
});

const body = () => ({ workspaceId: build.workspaceId, projectId: build.projectId, buildId: build.buildId });

describe('idle copies', () => {
  it('pauses a quiet copy, resumes it on activity (same copy, answering), and removes it after a long absence', async () => {
    const session = randomUUID();
    await runner.client.enter(session, body());
    const running = await runner.until(session, ['running']);
    const paused = await runner.until(session, ['paused'], 60_000);
    expect(paused.copyId).toBe(running.copyId);
    const [row] = await runner.sql<{ containerId: string }[]>`select container_id from runner_copies where id = ${running.copyId}`;
    expect((await runner.engine.inspect(row.containerId))?.status).toBe('paused');

    // The viewer is back: activity wakes the same copy, which answers at once.
    const resumed = await runner.client.activity(session);
    expect(resumed).toMatchObject({ state: 'running', copyId: running.copyId });
    const at = await runner.addressOf(resumed.copyId!);
    expect((await fetch(`http://${at.host}:${at.port}/`)).status).toBe(200);

    // Activity keeps it running…
    for (let i = 0; i < 4; i++) {
      await sleep(400);
      expect((await runner.client.activity(session)).state).toBe('running');
    }
    // …and a long absence pauses, then removes it.
    const gone = await runner.until(session, ['gone'], 20_000);
    expect(gone.detail).toBe('idle');
    await eventually(async () => (await runner.containers()).length === 0);
    const kinds = await runner.sql<{ kind: string }[]>`select kind from copy_events where copy_id = ${running.copyId} order by seq`;
    expect(kinds.map((k) => k.kind)).toEqual(['start', 'ready', 'pause', 'resume', 'pause', 'stop']);
  });

  it('resumes a paused copy when its viewer enters again', async () => {
    const session = randomUUID();
    await runner.client.enter(session, body());
    const first = await runner.until(session, ['paused'], 60_000);
    const again = await runner.client.enter(session, body());
    expect(again).toMatchObject({ state: 'running', copyId: first.copyId });
    await runner.client.leave(session);
  });

  it('starts a fresh copy when the paused one vanished from the engine', async () => {
    const session = randomUUID();
    await runner.client.enter(session, body());
    const paused = await runner.until(session, ['paused'], 60_000);
    const [row] = await runner.sql<{ containerId: string }[]>`select container_id from runner_copies where id = ${paused.copyId}`;
    await runner.engine.docker.getContainer(row.containerId).remove({ force: true });
    const next = await runner.client.enter(session, body());
    expect(next.copyId).not.toBe(paused.copyId);
    expect(['starting', 'running']).toContain(next.state);
    await runner.until(session, ['running', 'paused']);
    await runner.client.leave(session);
  });
});

describe('maximum age', () => {
  it('removes a copy past the maximum age even while it is active', async () => {
    const old = await startTestRunner({ RUNNER_MAX_AGE_S: '2', RUNNER_IDLE_PAUSE_S: '60' });
    try {
      const session = randomUUID();
      await old.client.enter(session, body());
      await old.until(session, ['running']);
      const gone = await old.until(session, ['gone'], 20_000);
      expect(gone.detail).toBe('max-age');
      await eventually(async () => (await old.containers()).length === 0);
    } finally {
      await old.close();
    }
  });
});
