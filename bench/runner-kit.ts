// Shared by the runner benchmarks (bench/runner-*.bench.ts): a real runner in this process on the
// test services, a seeded live container build of the runner tests' demo, the room's copy proxy in
// front of it, and the raw-engine baseline. Needs `node infra/local/test.mjs --services`.
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSql } from '../services/core/db.js';
import { testEnv } from '../test/support/services.js';
import { createCopyProxy, type CopyTarget } from '../services/room/copy-proxy.js';
import { probeHealth } from '../runner/copies/health-probe.js';
import { imageTagOf } from '../runner/images/image-store.js';
import { demoBundle } from '../runner/test-support/demo-bundle.js';
import { seedContainerBuild, seedWorkspace, type Seeded } from '../runner/test-support/seed.js';
import { startTestRunner, type TestRunner } from '../runner/test-support/test-runner.js';

export const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
export const ms = (n: number) => `${n.toFixed(1)} ms`;

export interface Kit {
  runner: TestRunner;
  build: Seeded;
  body: { workspaceId: string; projectId: string; buildId: string };
  /** The room's proxy in front of a copy: GET through it until 200. */
  proxyUrl: string;
  route(target: CopyTarget): void;
  close(): Promise<void>;
}

export async function startKit(env: Record<string, string> = {}, opts: { plan?: 'pro' | 'enterprise'; scope?: boolean } = {}): Promise<Kit> {
  const bundle = await demoBundle();
  const sql = createSql(testEnv().DATABASE_URL, { max: 1 });
  const workspaceId = await seedWorkspace(sql, opts.plan ?? 'enterprise');
  await sql.end();
  const runner = await startTestRunner({ RUNNER_HOST_CAPACITY: '60', ...(opts.scope ? { RUNNER_WORKSPACES: workspaceId } : {}), ...env });
  const build = await seedContainerBuild(runner.sql, runner.storage, bundle, { workspaceId });
  const body = { workspaceId: build.workspaceId, projectId: build.projectId, buildId: build.buildId };
  // Loaded before any viewer waits, as when a build goes live.
  await runner.client.prepare(build.buildId, 60_000);
  let target: CopyTarget | null = null;
  const proxy = createCopyProxy();
  const server = http.createServer((req, res) => {
    if (!target) return void res.writeHead(503).end();
    proxy.web(req, res, target);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    runner,
    build,
    body,
    proxyUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    route(t) {
      target = t;
    },
    async close() {
      proxy.close();
      server.close();
      await runner.close();
      await runner.engine.removeImage(imageTagOf(build.buildId)).catch(() => {});
    },
  };
}

/** The baseline: the same image started straight on the engine (default network, no limits), polled like the runner polls. */
export async function rawStart(kit: Kit): Promise<number> {
  const docker = kit.runner.engine.docker;
  const image = imageTagOf(kit.build.buildId);
  const t0 = performance.now();
  const c = await docker.createContainer({ Image: image, Cmd: ['node', 'server.js'], Env: ['PORT=8080', 'HOST=0.0.0.0'], Labels: { 'rooms.bench': 'raw' } });
  try {
    await c.start();
    const info = await c.inspect();
    const ip = Object.values(info.NetworkSettings.Networks)[0].IPAddress;
    await probeHealth(`http://${ip}:8080/healthz`, { deadline: Date.now() + 30_000 });
    return performance.now() - t0;
  } finally {
    await c.remove({ force: true });
  }
}

export const newSession = () => randomUUID();
