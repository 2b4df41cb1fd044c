import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlatform, type Platform } from '../support/platform.js';
import { demoBundle } from '../support/runner/demo-bundle.js';
import { eventually, startTestRunner, type TestRunner } from '../support/runner/test-runner.js';

// End to end: a container build made with `podman build` from the offline base image is deployed
// through the api (upload, bundle check, make live), the runner prepares it, and viewers enter.
let platform: Platform;
let runner: TestRunner;
beforeAll(async () => {
  platform = await startPlatform({ workers: true });
  runner = await startTestRunner({ RUNNER_HOST_CAPACITY: '2' });
});
afterAll(async () => {
  await runner?.close();
  await platform?.close();
});

describe('a deployed container build, end to end', () => {
  it('goes live, gives two viewers their own copies, queues a third at a cap of two and lets it in when one leaves', async () => {
    const bytes = await demoBundle();
    const { client, token } = await platform.person({ plan: 'pro' });
    const project = await client.call('createProject', { body: { slug: `e2e-${randomUUID().slice(0, 12)}`, name: 'E2E' } });
    const { uploadId, putUrl } = await client.call('startUpload', {
      params: { projectId: project.id },
      body: { kind: 'container', sizeBytes: bytes.length },
    });
    expect((await platform.fetch(putUrl, { method: 'PUT', token, body: bytes })).status).toBe(204);
    const manifest = {
      kind: 'container' as const,
      name: 'E2E demo',
      health: '/healthz',
      apps: [{ id: 'web', name: 'Web', path: '/', device: 'laptop' as const }],
      run: { start: ['node', 'server.js'], env: { MOCK_MODE: 'e2e' } },
    };
    const build = await client.call('createBuild', { params: { projectId: project.id }, body: { uploadId, manifest } });
    expect((await client.call('makeLive', { params: { projectId: project.id, buildId: build.id } })).live).toBe(true);
    const [{ workspaceId }] = await platform.deps.sql<
      { workspaceId: string }[]
    >`select workspace_id from projects where id = ${project.id}`;

    // What the api does, best effort, when a container build goes live.
    expect(await runner.client.prepare(build.id, 30_000)).toMatchObject({ image: 'ready' });

    const body = { workspaceId, projectId: project.id, buildId: build.id };
    const [v1, v2, v3] = [randomUUID(), randomUUID(), randomUUID()];
    await runner.client.enter(v1, body);
    await runner.client.enter(v2, body);
    expect(await runner.client.enter(v3, body)).toMatchObject({ state: 'queued', place: 1 });
    const [c1, c2] = [await runner.until(v1, ['running']), await runner.until(v2, ['running'])];
    const at = await Promise.all([c1, c2].map((c) => runner.addressOf(c.copyId!)));
    const answers = await Promise.all(at.map(async (a) => (await fetch(`http://${a.host}:${a.port}/`)).json()));
    expect(answers[0]).toMatchObject({ port: at[0].port, host: '0.0.0.0', mode: 'e2e' });
    expect(answers[1]).toMatchObject({ port: at[1].port, host: '0.0.0.0', mode: 'e2e' });
    expect(answers[0].copy).not.toBe(answers[1].copy);

    await runner.client.leave(v1);
    expect((await runner.until(v3, ['running'])).copyId).not.toBe(c1.copyId);

    // The builder sees it in their usage: two viewers' copies ran, one more after the wait, one held back.
    const usage = await client.call('containerUsage', {});
    expect(usage).toMatchObject({ runs: 3, failedStarts: 0, heldBack: 1 });
    expect(usage.medianColdStartMs).toBeGreaterThan(0);

    await runner.client.leave(v2);
    await runner.client.leave(v3);
    await eventually(async () => (await runner.containers()).length === 0);
  });
});
