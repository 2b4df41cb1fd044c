import { spawn } from 'node:child_process';
import { hostname } from 'node:os';
import Docker from 'dockerode';
import { afterAll, expect, it } from 'vitest';
import { testEnv } from '../../../test/support/services.js';
import { OWNER_LABEL, removeLeftRehearsals } from './left-rehearsals.js';

// What a tool killed outright left behind: a rehearsal container whose tool has ended on this
// machine is removed by the next rehearsal; one whose tool still runs, or another machine's, stays.
// Real podman; the look is narrowed to this file's containers, so other tests' copies are never
// judged, and theirs never sweep these.

const docker = new Docker({ socketPath: testEnv().DOCKER_HOST.replace(/^unix:\/\//, '') });
const mine = `pitch.rehearsal.test=${process.pid}`;
const made: string[] = [];

afterAll(async () => {
  for (const id of made)
    await docker
      .getContainer(id)
      .remove({ force: true })
      .catch(() => {});
});

/** A process of this machine that has ended: its id. */
async function endedPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0']);
  await new Promise((resolve) => child.on('exit', resolve));
  return child.pid!;
}

async function rehearsalContainer(owner: string): Promise<string> {
  const container = await docker.createContainer({
    Image: 'localhost/demo-node:24',
    Cmd: ['true'],
    // Not REHEARSAL_LABEL: the rehearsals of other test files running meanwhile would sweep this one first.
    Labels: { [OWNER_LABEL]: owner, 'pitch.rehearsal.test': String(process.pid) },
    HostConfig: { NetworkMode: 'none' },
  });
  made.push(container.id);
  return container.id;
}

const exists = (id: string) =>
  docker
    .getContainer(id)
    .inspect()
    .then(
      () => true,
      () => false,
    );

it("removes the rehearsal containers of a tool that has ended on this machine, and no running tool's or other machine's", async () => {
  const dead = await endedPid();
  const left = await rehearsalContainer(`${hostname()}:${dead}`);
  const running = await rehearsalContainer(`${hostname()}:${process.pid}`);
  const elsewhere = await rehearsalContainer(`another-machine:${dead}`);

  expect(await removeLeftRehearsals(docker, mine)).toBe(1);
  expect(await exists(left)).toBe(false);
  expect(await exists(running)).toBe(true);
  expect(await exists(elsewhere)).toBe(true);
});

it('judges nothing on an engine of another machine, where a process id means nothing', async () => {
  const remote = new Docker({ host: '127.0.0.1', port: 1, protocol: 'http' });
  expect(await removeLeftRehearsals(remote, mine)).toBe(0);
});
