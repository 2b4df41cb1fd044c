// Shared by the runner benchmarks (bench/runner-*.bench.ts): a real runner in this process on the
// test services, a seeded live container build of the runner tests' demo, the room's copy proxy in
// front of it, and the raw-engine baseline. Needs `node infra/local/test.mjs --services`.
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { createSql } from '../services/core/infra/db.js';
import { testEnv } from '../test/support/services.js';
import { createCopyProxy, type CopyTarget } from '../services/room/viewer-copies/copy-proxy.js';
import { probeHealth } from '../runner/copies/health-probe.js';
import { imageTagOf } from '../runner/images/image-store.js';
import { demoBundle } from '../test/support/runner/demo-bundle.js';
import { seedContainerBuild, seedWorkspace, type Seeded } from '../test/support/runner/seed.js';
import { startTestRunner, type TestRunner } from '../test/support/runner/test-runner.js';
import type { CopyView } from '@demo-rooms/contract/runner';
import { step } from './report.js';

/** How long a bench waits for its image to load and for a copy to start, on a machine where nothing ran before (s). */
const PREPARE_S = Number(process.env.BENCH_PREPARE_S ?? 300);
const START_S = Number(process.env.BENCH_START_S ?? 120);
const run = promisify(execFile);

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

export async function startKit(
  env: Record<string, string> = {},
  opts: { plan?: 'pro' | 'enterprise'; scope?: boolean } = {},
): Promise<Kit> {
  // On a fresh machine this builds the demo image (podman build from the offline base image).
  const bundle = await step('building the demo image (test/support/runner/demo)', () => demoBundle());
  const sql = createSql(testEnv().DATABASE_URL, { max: 1 });
  const workspaceId = await step('seeding a workspace (are the test services up?)', () => seedWorkspace(sql, opts.plan ?? 'enterprise'));
  await sql.end();
  const runner = await step('starting the runner', () =>
    startTestRunner({ RUNNER_HOST_CAPACITY: '60', ...(opts.scope ? { RUNNER_WORKSPACES: workspaceId } : {}), ...env }),
  );
  const build = await step('storing the demo build', () => seedContainerBuild(runner.sql, runner.storage, bundle, { workspaceId }));
  const body = { workspaceId: build.workspaceId, projectId: build.projectId, buildId: build.buildId };
  // Loaded into the engine before any timing starts, as when a build goes live.
  await step(`loading the demo image into the engine (deadline ${PREPARE_S} s)`, () => imageReady(runner, build.buildId));
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

/** A raw start's way in: the engine's API (create + start, as the runner does) or the `podman run -d` command. */
export type RawVia = 'api' | 'cli';

/**
 * The baseline: the same image started straight on the engine (default network, no limits), polled
 * like the runner polls, timed from the first call to the first 200. `cli` is a `podman run -d` (a
 * process of its own: the issue's "raw podman run"), its address then read through the API.
 * Labelled `rooms.bench=<label>` (default `raw`), so a bench can find what a failed start left.
 * The container stays until `remove` is called (removed already when the start fails).
 */
export async function rawCopy(kit: Kit, opts: { via?: RawVia; label?: string } = {}): Promise<{ ms: number; remove(): Promise<void> }> {
  const docker = kit.runner.engine.docker;
  const image = imageTagOf(kit.build.buildId);
  const label = opts.label ?? 'raw';
  let id: string | null = null;
  const remove = async () => {
    if (id) await docker.getContainer(id).remove({ force: true });
  };
  const t0 = performance.now();
  try {
    if (opts.via === 'cli') {
      const args = ['run', '-d', '--label', `rooms.bench=${label}`, '-e', 'PORT=8080', '-e', 'HOST=0.0.0.0', image, 'node', 'server.js'];
      id = (await run('podman', args, { env: { ...process.env, CONTAINERS_CONF: testEnv().CONTAINERS_CONF } })).stdout.trim();
    } else {
      const c = await docker.createContainer({
        Image: image,
        Cmd: ['node', 'server.js'],
        Env: ['PORT=8080', 'HOST=0.0.0.0'],
        Labels: { 'rooms.bench': label },
      });
      id = c.id;
      await c.start();
    }
    const info = await docker.getContainer(id).inspect();
    const ip = Object.values(info.NetworkSettings.Networks)[0].IPAddress;
    await probeHealth(`http://${ip}:8080/healthz`, { deadline: Date.now() + 60_000 });
    return { ms: performance.now() - t0, remove };
  } catch (err) {
    await remove().catch(() => {});
    throw err;
  }
}

/** One raw start (rawCopy), removed once it answered: its time (ms). */
export async function rawStart(kit: Kit, opts: { via?: RawVia; label?: string } = {}): Promise<number> {
  const copy = await rawCopy(kit, opts);
  await copy.remove();
  return copy.ms;
}

/** Removes every container labelled `rooms.bench=<label>` (a raw start that failed half way); returns how many there were. */
export async function removeRaw(kit: Kit, label: string): Promise<number> {
  const docker = kit.runner.engine.docker;
  const left = await docker.listContainers({ all: true, filters: JSON.stringify({ label: [`rooms.bench=${label}`] }) });
  for (const c of left)
    await docker
      .getContainer(c.Id)
      .remove({ force: true })
      .catch(() => {});
  return left.length;
}

export const newSession = () => randomUUID();

/** Waits, within PREPARE_S, until the runner has the build's image loaded. */
async function imageReady(runner: TestRunner, buildId: string): Promise<void> {
  const deadline = Date.now() + PREPARE_S * 1000;
  for (;;) {
    const left = deadline - Date.now();
    const reply = await runner.client.prepare(buildId, Math.max(1_000, Math.min(60_000, left)));
    if (reply.image === 'ready') return;
    if (reply.image === 'failed') throw new Error(`the runner could not load the image: ${reply.detail ?? 'no detail'}`);
    if (Date.now() >= deadline) throw new Error(`the image was still loading after ${PREPARE_S} s (BENCH_PREPARE_S)`);
  }
}

/**
 * A viewer enters and the bench waits for their copy to run. On a machine where nothing ran
 * before, the first copy can still be `starting` when enter's own wait ends (issue 35: benches
 * threw "copy starting" on their first run); it is waited for up to START_S, and past that the
 * bench says so.
 */
export async function enterRunning(kit: Kit, session: string): Promise<CopyView> {
  const deadline = Date.now() + START_S * 1000;
  let view = await kit.runner.client.enter(session, kit.body, Math.min(30_000, START_S * 1000));
  while (view.state === 'starting' || view.state === 'queued') {
    const left = deadline - Date.now();
    if (left <= 0)
      throw new Error(
        `the copy was still ${view.state} after ${START_S} s (the bench's deadline, BENCH_START_S)${view.detail ? `: ${view.detail}` : ''}`,
      );
    view = await kit.runner.client.copy(session, { seen: view.version, waitMs: Math.min(left, 10_000) });
  }
  if (view.state !== 'running') throw new Error(`the copy ended ${view.state}${view.detail ? `: ${view.detail}` : ''}`);
  return view;
}
