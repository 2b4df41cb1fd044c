import Docker from 'dockerode';
import { expect, it, onTestFinished } from 'vitest';
import { testEnv } from '../../../test/support/services.js';
import { engineMessage } from './engine-message.js';
import { rehearsalLabels } from './left-rehearsals.js';
import { askStart } from './start-asked.js';

// A copy's start asked so that the tool knows when the engine has the request (start-asked.ts):
// `sent` settles once it has left, before the engine's answer, and the engine starts the copy
// while this thread does something else. Real podman.

const docker = new Docker({ socketPath: testEnv().DOCKER_HOST.replace(/^unix:\/\//, '') });

/** A made, never-started container of the offline Node base that sleeps once started. */
async function made(): Promise<Docker.Container> {
  const container = await docker.createContainer({
    Image: 'localhost/demo-node:24',
    Cmd: ['node', '-e', 'setTimeout(() => {}, 60_000)'],
    Labels: rehearsalLabels(),
    HostConfig: { NetworkMode: 'none' },
  });
  onTestFinished(() => container.remove({ force: true }).catch(() => {}));
  return container;
}

it('says when the request has left, then the engine starts the copy while this thread is held', async () => {
  const container = await made();
  const order: string[] = [];
  const { sent, answered } = askStart(docker, container);
  void sent.then(() => order.push('sent'));
  void answered.then(() => order.push('answered'));
  await sent;
  // This thread held, as the tool's loading holds it: the engine starts the copy meanwhile.
  const held = Date.now();
  while (Date.now() - held < 1500);
  await answered;
  expect(order).toEqual(['sent', 'answered']);
  const info = await container.inspect();
  expect(info.State.Running).toBe(true);
  // Started during the hold, not once the thread was free again.
  expect(Date.parse(info.State.StartedAt)).toBeLessThan(held + 1500);
  // Asked again, a running copy is no failure (304).
  await askStart(docker, container).answered;
});

it("fails with the engine's own words when the copy cannot start, and still says the request left", async () => {
  const container = await made();
  await container.remove({ force: true });
  const { sent, answered } = askStart(docker, container);
  await sent;
  const failure = await answered.then(
    () => null,
    (err: unknown) => err,
  );
  expect(failure).not.toBeNull();
  expect(engineMessage(failure)).toMatch(/no such container/i);
});
