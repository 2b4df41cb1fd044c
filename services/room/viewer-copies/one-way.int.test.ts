import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { which } from '../../../infra/local/lib.mjs';
import { liveContainerDemo, viewerOnCopy } from '../../../test/support/container-copy.js';
import { copySocket } from '../../../test/support/copy-socket.js';
import { startPlatform, type Platform } from '../../../test/support/platform.js';
import { hit } from '../../../test/support/room.js';
import { startTestDataplane, type TestDataplane } from '../../../test/support/runner/test-dataplane.js';
import { startTestRunner, type TestRunner } from '../../../test/support/runner/test-runner.js';
import { testEnv } from '../../../test/support/services.js';

// One way to a copy (docs/runner.md, "One way to a copy"; issue 44): the room reaches a copy only
// through its host's data plane, never at the copy's own address. Shown by the network: the data
// plane runs as `nobody`, and while the viewer uses their copy the kernel refuses every
// connection a root process (the room, this test) opens to the copy's address. The viewer's page,
// requests and WebSocket through the room still work; a direct request from this process does not.

const NOBODY = 65534;
const canFilter = process.getuid?.() === 0 && which('iptables') !== null;

let plane: TestDataplane;
let runner: TestRunner;
let platform: Platform;

describe.skipIf(!canFilter)('the way from the room to a copy', () => {
  beforeAll(async () => {
    plane = await startTestDataplane(testEnv().COPY_TOKEN_KEY, { runAs: NOBODY });
    runner = await startTestRunner({
      DATAPLANE_ADMIN_SOCKET: plane.adminSocket,
      DATAPLANE_ROUTES_MAP: plane.routesMap,
      RUNNER_COPY_ORIGIN: plane.url,
      RUNNER_FLEET: `t-${randomUUID().slice(0, 8)}`,
    });
    platform = await startPlatform({ workers: true, env: { RUNNER_URL: runner.baseUrl } });
    await plane.pointRoomAt(Number(new URL(platform.baseUrl).port));
  });
  afterAll(async () => {
    await platform?.close();
    await runner?.close();
    await plane?.stop();
  });

  it("is its host's data plane: with the copy's own address closed to the room, the viewer is still served", async () => {
    const { person, project } = await liveContainerDemo(platform, 'One way');
    const { url } = await person.client.call('createLink', { params: { projectId: project.id }, body: { viewerName: 'Routed' } });
    const v = await viewerOnCopy(platform, url);
    const [copy] = await runner.sql<{ id: string }[]>`select id from runner_copies where session_id = ${v.sessionId} and state = 'running'`;
    const at = await runner.addressOf(copy.id);
    // Root's connections to the copy are refused (HAProxy, as nobody, is not root).
    const rule = [
      'OUTPUT',
      '-p',
      'tcp',
      '-d',
      at.host,
      '--dport',
      String(at.port),
      '-m',
      'owner',
      '--uid-owner',
      '0',
      '-j',
      'REJECT',
      '--reject-with',
      'tcp-reset',
    ];
    execFileSync('iptables', ['-I', ...rule]);
    try {
      await expect(fetch(`http://${at.host}:${at.port}/headers`, { signal: AbortSignal.timeout(3_000) })).rejects.toThrow();

      const seen = await hit(platform, '/headers', { host: v.host, jar: v.jar });
      expect(seen.status).toBe(200);
      // It came by the room's hop through the data plane, which took the room's token off.
      expect(seen.json).toMatchObject({ 'x-pp-room-hop': '1', 'x-forwarded-host': v.host });
      expect(String(seen.json.cookie ?? '')).not.toContain('__Host-pp_copy');

      const page = await hit(platform, '/page', { host: v.host, jar: v.jar, headers: { 'sec-fetch-dest': 'iframe', accept: 'text/html' } });
      expect(page.status).toBe(200);
      expect(page.text).toContain('/__pp/frame-helper.js');

      const ws = await copySocket(platform, v.host, v.jar);
      expect(await ws.echo('through the data plane')).toBe('through the data plane');
      ws.socket.destroy();
    } finally {
      execFileSync('iptables', ['-D', ...rule]);
    }
  });
});
