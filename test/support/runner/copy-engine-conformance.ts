import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CopySpec } from '@demo-rooms/contract/runner';
import type { Logger } from '../../../services/core/infra/log.js';
import type { BuildImage, CopyEngine, CopyExit, StartHooks } from '../../../runner/engine/copy-engine.js';
import { TEST_COPY_PORT, testCopySpec } from './test-copy-spec.js';

// The promises every CopyEngine keeps, written once against the interface: an engine's own
// *.int.test.ts runs them with a harness for that engine (docker-engine.int.test.ts today; a
// Kubernetes engine's tomorrow). Each is a promise the runner builds on: a copy reaches neither
// another copy nor the host, its limits hold, its end is told (an OOM kill as such), a restarted
// runner finds what it left, a stop leaves nothing, and preparing an image twice is harmless.

export interface EngineHarness<E extends CopyEngine = CopyEngine> {
  /** A runner id of this suite alone: everything the suite starts carries it. */
  runnerId: string;
  /** A new engine over the same place copies run: what a restarted runner makes. */
  make(): E;
  /** The demo image (test/support/runner/demo: `node server.js`, answering /probe?to=host:port) as a build. */
  build: BuildImage;
  /**
   * Secures the place copies run, as the runner's start does, before any copy: the Docker engine's
   * host guard; on Kubernetes the copies' NetworkPolicy. True when copies' gateways are closed too.
   */
  secure(engine: E): Promise<boolean>;
  /** Whether the engine holds the prepared image; absent where nodes keep their own (Kubernetes). */
  holds?(engine: E, image: string): Promise<boolean>;
  log: Logger;
  /** Addresses of this host that copies must not reach (with the host guard installed, the copies' gateways too). */
  hostAddresses(guarded: boolean): string[];
  /**
   * False where the engine cannot bound one copy's processes (Kubernetes has no per-pod field: only
   * the kubelet's podPidsLimit, one number for every pod of a node); the limits test then reads no pids.
   */
  pidsLimited?: boolean;
  /** Removes the image and anything the suite left. */
  close(): Promise<void>;
}

const PORT = TEST_COPY_PORT;

/** A copy's own view of its limits, its end on request (/exit) and an allocation past its memory (/oom). */
const LIMITS_SERVER = `
const fs = require('fs'), http = require('http');
const read = (...paths) => { for (const p of paths) { try { return fs.readFileSync(p, 'utf8').trim(); } catch {} } return null; };
const cpus = () => {
  const v2 = read('/sys/fs/cgroup/cpu.max');
  if (v2) { const [q, p] = v2.split(' '); return q === 'max' ? null : Number(q) / Number(p); }
  const q = Number(read('/sys/fs/cgroup/cpu/cpu.cfs_quota_us', '/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us'));
  const p = Number(read('/sys/fs/cgroup/cpu/cpu.cfs_period_us', '/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us'));
  return q > 0 && p > 0 ? q / p : null;
};
http.createServer((req, res) => {
  if (req.url === '/exit') { res.end('bye'); setTimeout(() => process.exit(3), 50); return; }
  if (req.url === '/oom') { res.end('eating'); const a = []; setInterval(() => a.push(Buffer.alloc(8e6, 1)), 5); return; }
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify({
    memory: Number(read('/sys/fs/cgroup/memory.max', '/sys/fs/cgroup/memory/memory.limit_in_bytes')),
    pids: Number(read('/sys/fs/cgroup/pids.max', '/sys/fs/cgroup/pids/pids.max')),
    cpus: cpus(),
  }));
}).listen(Number(process.env.PORT), process.env.HOST);`;

export function copyEngineConformance<E extends CopyEngine>(name: string, harness: () => Promise<EngineHarness<E>>): void {
  describe(`the copy engine's promises: ${name}`, () => {
    let h: EngineHarness<E>;
    let engine: E;
    let image: string;
    let guarded = false;
    let hostService: Server;
    let hostPort: number;
    const exits: CopyExit[] = [];
    const following = new AbortController();

    const spec = (over: Partial<CopySpec> = {}): CopySpec => testCopySpec({ buildId: h.build.buildId, runnerId: h.runnerId, image }, over);
    const hooks = (over: Partial<StartHooks> = {}): StartHooks => ({
      signal: new AbortController().signal,
      made: async () => {},
      running: async () => {},
      phase: () => {},
      ...over,
    });
    const get = async (address: string, path: string) =>
      (await fetch(`http://${address}:${PORT}${path}`)).json() as Promise<Record<string, unknown>>;
    /** Waits for the copy to answer (the engine's start does not wait for the program inside). */
    const answering = async (address: string) => {
      for (let i = 0; i < 100; i++) {
        const ok = await fetch(`http://${address}:${PORT}/`).then(
          (r) => r.ok,
          () => false,
        );
        if (ok) return;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error(`the copy at ${address} never answered`);
    };
    const exitOf = async (copyId: string) => {
      for (let i = 0; i < 300; i++) {
        const exit = exits.find((e) => e.copyId === copyId);
        if (exit) return exit;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error(`no exit told for copy ${copyId}`);
    };
    const listedIds = async (e: CopyEngine) => (await e.list(h.runnerId)).map((c) => c.copyId);

    beforeAll(async () => {
      h = await harness();
      engine = h.make();
      guarded = await h.secure(engine);
      // A service on every address of the host, as careless host software might run.
      hostService = createServer((c) => c.end('host secret\n'));
      await new Promise<void>((resolve) => hostService.listen(0, '0.0.0.0', resolve));
      hostPort = (hostService.address() as { port: number }).port;
      image = await engine.prepare(h.build);
      const stream = await engine.exits(h.runnerId, { signal: following.signal });
      void (async () => {
        for await (const e of stream) exits.push(e);
      })().catch(() => {});
    });
    afterAll(async () => {
      following.abort();
      hostService?.close();
      if (!h) return;
      for (const c of await engine.list(h.runnerId))
        await engine.stop({ runnerId: h.runnerId, copyId: c.copyId, handle: c.handle }).catch(() => {});
      await h.close();
    });

    it('prepares an image idempotently: twice is the same image, and the engine holds it', async () => {
      expect(await engine.prepare(h.build)).toBe(image);
      if (h.holds) expect(await h.holds(engine, image)).toBe(true);
    });

    it('starts a copy that answers at its address, records before it runs, and times its phases', async () => {
      const order: string[] = [];
      const s = spec();
      const started = await engine.start(
        s,
        hooks({
          made: async (handle) => void order.push(`made ${handle}`),
          running: async () => void order.push('running'),
          phase: (p) => void order.push(`phase ${p}`),
        }),
      );
      expect(order.indexOf(`made ${started.handle}`)).toBeGreaterThanOrEqual(0);
      expect(order.indexOf(`made ${started.handle}`)).toBeLessThan(order.indexOf('running'));
      expect(order.filter((o) => o.startsWith('phase')).length).toBeGreaterThan(0);
      await answering(started.address);
      expect(await engine.state(started.handle)).toMatchObject({ handle: started.handle, status: 'running', address: started.address });
    });

    it('isolates a copy: it reaches neither another copy nor the host, nor anything outside', async () => {
      const [a, b] = await Promise.all([engine.start(spec(), hooks()), engine.start(spec(), hooks())]);
      await Promise.all([answering(a.address), answering(b.address)]);
      const probe = async (from: string, to: string) => (await get(from, `/probe?to=${to}`)).result;
      expect(a.address).not.toBe(b.address);
      expect(await probe(a.address, `${a.address}:${PORT}`)).toBe('connected'); // probing works at all
      expect(await probe(a.address, `${b.address}:${PORT}`)).not.toBe('connected');
      expect(await probe(b.address, `${a.address}:${PORT}`)).not.toBe('connected');
      // The host's service on each of its addresses, and the world.
      for (const to of ['1.1.1.1:80', '169.254.169.254:80', ...h.hostAddresses(guarded).map((ip) => `${ip}:${hostPort}`)]) {
        expect(await probe(a.address, to), to).not.toBe('connected');
      }
    });

    it("applies the copy's limits: memory, processes and CPU as the spec asks", async () => {
      const started = await engine.start(spec({ start: ['node', '-e', LIMITS_SERVER], memoryMb: 96, pids: 48, cpus: 0.25 }), hooks());
      await answering(started.address);
      const { pids, ...limits } = await get(started.address, '/');
      expect(limits).toEqual({ memory: 96 * 2 ** 20, cpus: 0.25 });
      if (h.pidsLimited !== false) expect(pids).toBe(48);
    });

    it('tells of an exit, with its code', async () => {
      const s = spec({ start: ['node', '-e', LIMITS_SERVER] });
      const started = await engine.start(s, hooks());
      await answering(started.address);
      await get(started.address, '/exit').catch(() => null);
      expect(await exitOf(s.copyId)).toMatchObject({ copyId: s.copyId, handle: started.handle, exitCode: 3, oom: false });
      expect(await engine.state(started.handle)).toMatchObject({ status: 'exited', exitCode: 3 });
    });

    it('tells of an OOM kill as such', async () => {
      const s = spec({ start: ['node', '-e', LIMITS_SERVER], memoryMb: 64 });
      const started = await engine.start(s, hooks());
      await answering(started.address);
      await fetch(`http://${started.address}:${PORT}/oom`).catch(() => null);
      const exit = await exitOf(s.copyId);
      // SIGKILL's 137 with no stop asked for is the OOM killer where the engine does not say so (podman on cgroup v1).
      expect(exit.oom || exit.exitCode === 137, JSON.stringify(exit)).toBe(true);
    });

    it('lists its copies to a new engine (a restarted runner), which can then manage them', async () => {
      const s = spec();
      const started = await engine.start(s, hooks());
      const again = h.make();
      const listed = (await again.list(h.runnerId)).find((c) => c.copyId === s.copyId);
      expect(listed).toMatchObject({ copyId: s.copyId, handle: started.handle, status: 'running' });
      // Adoption by label: what the copy is comes back from the engine, not from this process.
      expect(Object.values(listed!.labels)).toEqual(expect.arrayContaining([s.copyId, s.buildId, h.runnerId]));
      expect(await again.state(started.handle)).toMatchObject({ status: 'running', address: started.address });
      await again.stop({ runnerId: h.runnerId, copyId: s.copyId, handle: started.handle });
      expect(await listedIds(engine)).not.toContain(s.copyId);
    });

    it('stops a copy leaving nothing behind, and a start abandoned once the copy exists too', async () => {
      const s = spec();
      const started = await engine.start(s, hooks());
      // The engine's record of the run (issue 46): started while it runs, finished once stopped, kept by the caller.
      const held = (await engine.runs(h.runnerId)).find((r) => r.copyId === s.copyId);
      expect(held).toMatchObject({ handle: started.handle, finishedAt: null });
      expect(held!.startedAt).toBeInstanceOf(Date);
      const run = await engine.stop({ runnerId: h.runnerId, copyId: s.copyId, handle: started.handle });
      expect(run).toMatchObject({ copyId: s.copyId, startedAt: held!.startedAt });
      expect(run!.finishedAt!.getTime()).toBeGreaterThanOrEqual(run!.startedAt!.getTime());
      expect(await engine.state(started.handle)).toBeNull();
      expect(await listedIds(engine)).not.toContain(s.copyId);
      // Record before act: the runner's record refused the copy, so the start throws before it runs.
      const abandoned = spec();
      let made: string | null = null;
      await expect(
        engine.start(
          abandoned,
          hooks({
            made: async (handle) => {
              made = handle;
              throw new Error('ended while creating');
            },
          }),
        ),
      ).rejects.toThrow(/ended while creating/);
      expect(made).toBeTruthy();
      expect(await engine.state(made!)).toMatchObject({ status: 'created' });
      expect(await listedIds(engine)).toContain(abandoned.copyId);
      // Made, never run: the engine's record says so.
      expect(await engine.stop({ runnerId: h.runnerId, copyId: abandoned.copyId })).toMatchObject({ startedAt: null });
      expect(await listedIds(engine)).not.toContain(abandoned.copyId);
      // Stopping what is already gone is no error, and there is no run to tell of.
      expect(await engine.stop({ runnerId: h.runnerId, copyId: abandoned.copyId })).toBeNull();
    });

    it("ends another runner's copies it can see (a lost host's), with each run's record, its finish the engine's", async () => {
      const s = spec();
      const started = await engine.start(s, hooks());
      await answering(started.address);
      // A survivor's engine over the same place copies run: the copy is not its runner's.
      const survivor = h.make();
      const runs = await survivor.endRunsOf(h.runnerId);
      const run = runs.find((r) => r.copyId === s.copyId);
      expect(run?.startedAt).toBeInstanceOf(Date);
      expect(run?.finishedAt).toBeInstanceOf(Date);
      expect(run!.finishedAt!.getTime()).toBeGreaterThanOrEqual(run!.startedAt!.getTime());
      expect(await listedIds(engine)).not.toContain(s.copyId);
      expect(await survivor.endRunsOf(h.runnerId)).toEqual([]);
    });

    it('pauses and resumes a copy when it says it can', async () => {
      if (!engine.can.pause) {
        expect(engine.pause).toBeUndefined();
        return;
      }
      const started = await engine.start(spec(), hooks());
      await answering(started.address);
      await engine.pause!(started.handle);
      expect(await engine.state(started.handle)).toMatchObject({ status: 'paused' });
      await engine.resume!(started.handle);
      expect(await engine.state(started.handle)).toMatchObject({ status: 'running' });
      await answering(started.address);
    });

    it('declares checkpoints only with the calls that make and use them', () => {
      expect(typeof engine.checkpoint === 'function' && typeof engine.restore === 'function').toBe(engine.can.checkpoint);
    });
  });
}
