import { randomUUID } from 'node:crypto';
import type { CopySpec } from '@demo-rooms/contract/runner';

/** The port the engine tests' copies listen on (their PORT). */
export const TEST_COPY_PORT = 8080;

/** A copy of `image` as the engine tests start one: fresh ids, small limits, `over` on top. */
export function testCopySpec(of: Pick<CopySpec, 'buildId' | 'runnerId' | 'image'>, over: Partial<CopySpec> = {}): CopySpec {
  return {
    copyId: randomUUID(),
    projectId: randomUUID(),
    workspaceId: randomUUID(),
    start: null,
    env: {},
    port: TEST_COPY_PORT,
    memoryMb: 128,
    cpus: 0.5,
    pids: 64,
    writableMb: 16,
    ...of,
    ...over,
  };
}
