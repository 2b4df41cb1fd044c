import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CopySpec } from '@demo-rooms/contract/runner';
import { demoBundle } from '../../test/support/runner/demo-bundle.js';
import { seedContainerBuild, seedWorkspace, type Seeded } from '../../test/support/runner/seed.js';
import { startTestRunner, type TestRunner } from '../../test/support/runner/test-runner.js';

// `npm run ops -- usage reconcile` as an operator runs it, a process of its own, against a runner
// on podman (RUNNER_URL names it): a container with the runner's labels and no record is ended and
// printed as unowned, with a summary; asked again, nothing more is found.
const run = promisify(execFile);
let runner: TestRunner;
let b: Seeded;
beforeAll(async () => {
  runner = await startTestRunner({ RUNNER_RECONCILE_S: '3600', RUNNER_USAGE_RECONCILE_S: '3600' });
  b = await seedContainerBuild(runner.sql, runner.storage, await demoBundle(), { workspaceId: await seedWorkspace(runner.sql) });
});
afterAll(async () => {
  await runner?.close();
});

async function ops(...args: string[]) {
  const env = { ...process.env, DATABASE_URL: runner.env.DATABASE_URL, APP_SECRET: runner.env.APP_SECRET, RUNNER_URL: runner.baseUrl };
  const { stdout } = await run('node_modules/.bin/tsx', ['services/ops/main.ts', ...args], { env });
  return stdout;
}

describe('npm run ops -- usage reconcile', () => {
  it('prints each difference and a summary, and finds nothing more the second time', async () => {
    const since = new Date().toISOString();
    const stray = randomUUID();
    const spec: CopySpec = {
      copyId: stray,
      buildId: b.buildId,
      projectId: b.projectId,
      workspaceId: b.workspaceId,
      runnerId: runner.runnerId,
      image: await runner.service.ctx.images.ensure(b.buildId),
      start: ['node', 'server.js'],
      env: {},
      ...runner.settings.copy,
    };
    await runner.engine.start(spec, {
      signal: new AbortController().signal,
      made: async () => {},
      running: async () => {},
      phase: () => {},
    });

    const first = await ops('usage', 'reconcile', '--since', since);
    expect(first).toMatch(new RegExp(`unowned +copy ${stray} +workspace ${b.workspaceId} .*billed to its workspace`));
    expect(first).toMatch(/^summary: 1 of 1 hosts, 1 copies, 0 within 1 s, 1 differences \(1 unowned billed, 0 voided\)/m);
    expect((await runner.containers()).map((c) => c.labels['rooms.copy'])).not.toContain(stray);

    const second = await ops('usage', 'reconcile', '--since', since);
    expect(second).not.toContain(stray);
    expect(second).toMatch(/^summary: 1 of 1 hosts, 1 copies, 1 within 1 s, 0 differences/m);
  });
});
