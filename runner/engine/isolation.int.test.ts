import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:net';
import { networkInterfaces } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoBundle } from '../../test/support/runner/demo-bundle.js';
import { seedContainerBuild, seedWorkspace } from '../../test/support/runner/seed.js';
import { startTestRunner, type TestRunner } from '../../test/support/runner/test-runner.js';

// A copy has its own internal network: no route out, no way to another copy, and (with the host
// guard) no way into the host's own ports.
let runner: TestRunner;
let hostServer: Server;
let hostPort: number;
beforeAll(async () => {
  const bundle = await demoBundle();
  runner = await startTestRunner();
  // A server on every address of the host, as careless host software might run.
  hostServer = createServer((s) => s.end('host secret\n'));
  await new Promise<void>((resolve) => hostServer.listen(0, '0.0.0.0', resolve));
  hostPort = (hostServer.address() as { port: number }).port;
  const ws = await seedWorkspace(runner.sql);
  const b = await seedContainerBuild(runner.sql, runner.storage, bundle, { workspaceId: ws });
  const body = { workspaceId: b.workspaceId, projectId: b.projectId, buildId: b.buildId };
  await runner.client.enter(sessions.a, body);
  await runner.client.enter(sessions.b, body);
});
afterAll(async () => {
  hostServer?.close();
  await runner?.close();
});

const sessions = { a: randomUUID(), b: randomUUID() };
const probe = async (from: { host: string; port: number }, to: string) =>
  ((await (await fetch(`http://${from.host}:${from.port}/probe?to=${to}`)).json()) as { result: string }).result;

/** This host's own addresses other than loopback and the copies' bridges. */
const hostAddresses = () =>
  Object.entries(networkInterfaces())
    .filter(([name]) => name !== 'lo' && !name.startsWith('rc'))
    .flatMap(([, addrs]) => (addrs ?? []).filter((a) => a.family === 'IPv4').map((a) => a.address));

describe('network isolation of copies', () => {
  it('reaches no address outside its own network', async () => {
    const a = await runner.runningAt(sessions.a);
    for (const to of ['1.1.1.1:80', '8.8.8.8:53', '169.254.169.254:80', ...hostAddresses().map((ip) => `${ip}:${hostPort}`)]) {
      expect(await probe(a, to), to).not.toBe('connected');
    }
  });

  it('cannot reach another copy', async () => {
    const a = await runner.runningAt(sessions.a);
    const b = await runner.runningAt(sessions.b);
    expect(a.host).not.toBe(b.host);
    // The host reaches both; neither reaches the other.
    expect((await fetch(`http://${b.host}:${b.port}/`)).status).toBe(200);
    expect(await probe(a, `${b.host}:${b.port}`)).not.toBe('connected');
    expect(await probe(b, `${a.host}:${a.port}`)).not.toBe('connected');
  });

  it("cannot open the host's ports through its gateway when the host guard is installed", async () => {
    const a = await runner.runningAt(sessions.a);
    const gateway = a.host.replace(/\d+$/, (last) => String(Number(last) - 1));
    // The copy itself answers on its own address (a sanity check that probing works at all).
    expect(await probe(a, `${a.host}:${a.port}`)).toBe('connected');
    const guarded = runner.settings.hostGuard !== 'off' && process.getuid?.() === 0;
    if (guarded) expect(await probe(a, `${gateway}:${hostPort}`)).not.toBe('connected');
  });

  it("has no IPv6: no address of its own, so no way to a host service on [::] through the bridge's link-local address", async () => {
    const a = await runner.runningAt(sessions.a);
    // Careless host software listening on every IPv6 address (and IPv4 through mapped addresses).
    const v6 = createServer((s) => s.end('host secret\n'));
    await new Promise<void>((resolve) => v6.listen({ port: 0, host: '::' }, resolve));
    try {
      const port = (v6.address() as { port: number }).port;
      const gateway = a.host.replace(/\d+$/, (last) => String(Number(last) - 1));
      // The host side of the copy's bridge: the interface holding its gateway, and that interface's link-local address.
      const bridge = Object.values(networkInterfaces()).find((addrs) => addrs?.some((x) => x.address === gateway)) ?? [];
      const linkLocal = bridge.filter((x) => x.family === 'IPv6' && x.address.startsWith('fe80:')).map((x) => x.address);
      const { addresses } = (await (await fetch(`http://${a.host}:${a.port}/ipv6`)).json()) as { addresses: string[] };
      expect(addresses).toEqual([]);
      for (const address of linkLocal) expect(await probe(a, `${address}%eth0:${port}`), address).not.toBe('connected');
    } finally {
      v6.close();
    }
  });
});
