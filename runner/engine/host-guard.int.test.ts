import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { RunnerRefusal } from '@demo-rooms/contract/runner';
import { demoBundle } from '../../test/support/runner/demo-bundle.js';
import { seedContainerBuild, seedWorkspace } from '../../test/support/runner/seed.js';
import { startTestRunner, type TestRunner } from '../../test/support/runner/test-runner.js';

// A runner that needs the host guard (RUNNER_HOST_GUARD=auto) and cannot install it starts no
// copy: the firewall does not fail open. "Cannot install" is made real, not mocked: the runner is
// pointed at an iptables that is not there (RUNNER_IPTABLES), as on a host without it or without root.

let runner: TestRunner;
beforeAll(async () => {
  runner = await startTestRunner({ RUNNER_HOST_GUARD: 'auto', RUNNER_IPTABLES: '/nonexistent/iptables' });
});
afterAll(async () => {
  await runner?.close();
});

it('refuses copies and reports not ready when the guard it needs cannot be installed', async () => {
  const b = await seedContainerBuild(runner.sql, runner.storage, await demoBundle(), { workspaceId: await seedWorkspace(runner.sql) });
  const refusal = await runner.client.enter(randomUUID(), { workspaceId: b.workspaceId, projectId: b.projectId, buildId: b.buildId }).then(
    (view) => {
      throw new Error(`a copy was let in: ${JSON.stringify(view)}`);
    },
    (err: unknown) => err,
  );
  expect(refusal).toBeInstanceOf(RunnerRefusal);
  expect((refusal as RunnerRefusal).status).toBe(503);
  expect((refusal as RunnerRefusal).message).toMatch(/host guard/);
  expect(await runner.containers()).toEqual([]);

  const ready = await fetch(`${runner.baseUrl}/readyz`);
  expect(ready.status).toBe(503);
  expect(await ready.json()).toMatchObject({ ok: false, engine: true, hostGuard: expect.stringMatching(/not installed/) });
});
