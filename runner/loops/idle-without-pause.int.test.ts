import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { EngineCan } from '../engine/copy-engine.js';
import { demoBundle } from '../../test/support/runner/demo-bundle.js';
import { seedContainerBuild, seedWorkspace } from '../../test/support/runner/seed.js';
import { eventually, startTestRunner, type TestRunner } from '../../test/support/runner/test-runner.js';

// The culler asks the engine what it can do: on an engine without pause (Kubernetes has none),
// a quiet copy is removed where it would have been paused, never asked to pause.
let runner: TestRunner;
beforeAll(async () => {
  runner = await startTestRunner({ RUNNER_IDLE_PAUSE_S: '1', RUNNER_IDLE_REMOVE_S: '600', RUNNER_MAX_AGE_S: '600' });
  (runner.engine as { can: EngineCan }).can = { pause: false, checkpoint: false };
});
afterAll(async () => {
  await runner?.close();
});

it('removes a quiet copy as idle, without a pause, when the engine cannot pause', async () => {
  const b = await seedContainerBuild(runner.sql, runner.storage, await demoBundle(), { workspaceId: await seedWorkspace(runner.sql) });
  const session = randomUUID();
  await runner.client.enter(session, { workspaceId: b.workspaceId, projectId: b.projectId, buildId: b.buildId });
  const running = await runner.until(session, ['running']);
  const gone = await runner.until(session, ['gone', 'paused'], 20_000);
  expect(gone).toMatchObject({ state: 'gone', detail: 'idle' });
  await eventually(async () => (await runner.containers()).length === 0);
  const kinds = await runner.sql<{ kind: string }[]>`select kind from copy_events where copy_id = ${running.copyId} order by seq`;
  expect(kinds.map((k) => k.kind)).toEqual(['start', 'ready', 'stop']);
});
