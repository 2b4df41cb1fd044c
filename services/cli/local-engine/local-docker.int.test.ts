import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import { expect, it } from 'vitest';
import { testEnv } from '../../../test/support/services.js';
import { Refusal } from '../refusal.js';
import { findEngine } from './local-docker.js';
import { engineKind } from './local-copy.js';

// Without DOCKER_HOST and without Docker's socket, the tool finds the podman a local platform
// (`npm start`) serves, from the components file the launcher keeps in its data folder.

it("finds the local platform's podman, and says plainly where it looked when none runs", async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'pitch-engine-'));
  try {
    await expect(findEngine({ DATA_DIR: dataDir })).rejects.toThrow(Refusal);
    await writeFile(
      join(dataDir, 'components.json'),
      JSON.stringify({ running: true, components: { podman: { env: { DOCKER_HOST: testEnv().DOCKER_HOST } } } }),
    );
    const found = await findEngine({ DATA_DIR: dataDir });
    expect(found.where).toBe(`${testEnv().DOCKER_HOST} (the local platform's podman)`);
    expect((await found.docker.version()).Components?.some((c) => /podman/i.test(c.Name))).toBe(true);
    // A platform that has stopped is no engine.
    await writeFile(
      join(dataDir, 'components.json'),
      JSON.stringify({ running: false, components: { podman: { env: { DOCKER_HOST: testEnv().DOCKER_HOST } } } }),
    );
    await expect(findEngine({ DATA_DIR: dataDir })).rejects.toThrow(/no local platform \(npm start\) runs/);
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
});

it('tells podman from its ping (the version call takes seconds), and a socket with no engine as Docker', async () => {
  const socketPath = testEnv().DOCKER_HOST.replace(/^unix:\/\//, '');
  expect(await engineKind(new Docker({ socketPath }))).toBe('podman');
  // No engine answers there: neither the ping nor the version call says podman.
  expect(await engineKind(new Docker({ socketPath: join(tmpdir(), `no-engine-${process.pid}.sock`) }))).toBe('docker');
});
