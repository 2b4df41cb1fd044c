import Docker from 'dockerode';
import { expect, it } from 'vitest';
import { testEnv } from '../../../test/support/services.js';
import { requestAfterExit } from './after-exit.js';
import { startLocalCopy } from './local-copy.js';

// The rehearsal copy's removal handed to a process of its own (after-exit.ts): this test's process
// makes none of the calls, and the copy and its /app holder still go. Real podman.

const SERVER = "require('node:http').createServer((q, s) => s.end('ok')).listen(Number(process.env.PORT), process.env.HOST)";

async function containersOf(docker: Docker, ids: string[]): Promise<string[]> {
  const all = await docker.listContainers({ all: true, filters: { label: ['pitch.rehearsal=true'] } });
  return all.map((c) => c.Id).filter((id) => ids.includes(id));
}

it('removes a rehearsal copy and its /app holder from a detached process, the copy handed over once', async () => {
  const docker = new Docker({ socketPath: testEnv().DOCKER_HOST.replace(/^unix:\/\//, '') });
  const before = new Set((await docker.listContainers({ all: true, filters: { label: ['pitch.rehearsal=true'] } })).map((c) => c.Id));
  const copy = await startLocalCopy(docker, 'localhost/demo-node:24', ['node', '-e', SERVER], {});
  const made = (await docker.listContainers({ all: true, filters: { label: ['pitch.rehearsal=true'] } }))
    .map((c) => c.Id)
    .filter((id) => !before.has(id));
  // The copy and the holder whose /app it lays its overlay on.
  expect(made).toHaveLength(2);

  const removal = copy.removal();
  expect(removal?.requests.map((r) => r.method)).toEqual(['POST', 'DELETE', 'DELETE']);
  // Handed over once: a second ask (the cleanup after a stop) gets nothing to hand over.
  expect(copy.removal()).toBeNull();
  expect(requestAfterExit([removal!])).toBe(true);

  let left = made;
  for (let tries = 0; tries < 200 && left.length > 0; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    left = await containersOf(docker, made);
  }
  expect(left).toEqual([]);
});

it('hands nothing over for a copy whose removal this process has begun', async () => {
  const docker = new Docker({ socketPath: testEnv().DOCKER_HOST.replace(/^unix:\/\//, '') });
  const copy = await startLocalCopy(docker, 'localhost/demo-node:24', ['node', '-e', SERVER], {});
  await copy.remove();
  expect(copy.removal()).toBeNull();
});
