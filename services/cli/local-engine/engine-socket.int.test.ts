import Docker from 'dockerode';
import { expect, it } from 'vitest';
import { testEnv } from '../../../test/support/services.js';
import { baseImageIds } from './build-inputs.js';
import { engineSocket } from './engine-socket.js';
import { socketEngine } from './socket-engine.js';

// The "nothing changed" check asks the engine over its socket without dockerode (issue 48, item 3):
// it must read each base's id exactly as dockerode does, or an unchanged folder would look changed.

const host = testEnv().DOCKER_HOST;
const socketPath = host.replace(/^unix:\/\//, '');

it("reads a base image's id as dockerode does, and an absent image as absent", async () => {
  expect(await engineSocket({ DOCKER_HOST: host })).toBe(socketPath);
  expect(await engineSocket({ DOCKER_HOST: 'tcp://127.0.0.1:2375' })).toBeNull();
  const dockerfile = 'FROM localhost/demo-node:24\nFROM localhost/never-built-here:1\n';
  const viaSocket = await baseImageIds(socketEngine(socketPath), dockerfile);
  const viaDockerode = await baseImageIds(new Docker({ socketPath }), dockerfile);
  expect(viaSocket).toEqual(viaDockerode);
  expect(viaSocket[0][1]).toMatch(/^(sha256:)?[0-9a-f]{64}$/);
  expect(viaSocket[1]).toEqual(['localhost/never-built-here:1', 'absent']);
});
