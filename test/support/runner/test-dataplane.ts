import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { adminCommand, startDataplane, type Dataplane } from '../../../infra/local/dataplane.mjs';
import { freePort } from '../../../infra/local/lib.mjs';

// A test runner's data plane: HAProxy from infra/local/dataplane.mjs, as `npm start` runs it, on
// a free loopback port, with the copy-token key of the test platform's room. Copies are reached
// only through it (docs/runner.md, "One way to a copy"): the runner sets its routes, and the room
// sends each copy request here with a fresh copy token. What it does not carry to a copy goes to
// the room, which a test names once it listens (`pointRoomAt`); until then such a request is 503.

export interface TestDataplane {
  /** The copy origin the runner registers: `http://127.0.0.1:<port>`. */
  url: string;
  port: number;
  adminSocket: string;
  routesMap: string;
  /** Requests the data plane does not take (page loads, no token, no route) go to the room on this port. */
  pointRoomAt(port: number): Promise<void>;
  stop(): Promise<void>;
}

/** The room's origin is a loopback port a test picks at random: any of them may frame a copy. */
const TEST_FRAME_ANCESTORS = 'http://127.0.0.1:*';

export async function startTestDataplane(tokenKey: string, opts: { runAs?: number } = {}): Promise<TestDataplane> {
  const dir = mkdtempSync(path.join(tmpdir(), 'test-dataplane-'));
  let plane: Dataplane | undefined;
  // A free port can be taken between the check and HAProxy's bind by another test file: try again.
  for (let attempt = 1; !plane; attempt++) {
    const port = await freePort();
    try {
      plane = await startDataplane({
        dir,
        port,
        room: '127.0.0.1:1',
        frameAncestors: TEST_FRAME_ANCESTORS,
        tokenKey,
        runAs: opts.runAs,
        // As `npm start`: the room's hops come from loopback (runner/dataplane/dataplane-limits.int.test.ts tests the cap).
        limits: { uncappedSources: ['127.0.0.1'] },
      });
    } catch (error) {
      if (attempt >= 3) {
        rmSync(dir, { recursive: true, force: true });
        throw error;
      }
    }
  }
  const started = plane;
  return {
    url: `http://127.0.0.1:${started.port}`,
    port: started.port,
    adminSocket: started.adminSocket,
    routesMap: started.routesMap,
    async pointRoomAt(port) {
      const answer = await adminCommand(started.adminSocket, `set server room/room addr 127.0.0.1 port ${port}`);
      if (answer.trim() && !/changed|no need to change/i.test(answer))
        throw new Error(`the data plane refused the room's address: ${answer.trim()}`);
    },
    async stop() {
      await started.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
