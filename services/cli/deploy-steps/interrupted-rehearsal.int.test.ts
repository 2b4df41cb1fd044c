import { spawn } from 'node:child_process';
import { hostname } from 'node:os';
import { fileURLToPath } from 'node:url';
import Docker from 'dockerode';
import { expect, it } from 'vitest';
import { testEnv } from '../../../test/support/services.js';
import { OWNER_LABEL } from '../local-engine/left-rehearsals.js';

// A Ctrl-C while the engine makes the rehearsal copy (after the create, the start asked): the tool
// removes the copy, and its /app's holder, before it exits 130, instead of leaving them running
// for the next rehearsal's sweep. The tool is a real process, stopped by a real SIGINT, on real podman.

const docker = new Docker({ socketPath: testEnv().DOCKER_HOST.replace(/^unix:\/\//, '') });
const rehearsal = fileURLToPath(new URL('./rehearsal.ts', import.meta.url));

// The child starts a rehearsal of the offline Node base and stops itself the moment the engine
// has been asked to start the copy, printing its process id first.
const CHILD = `
const { register } = await import('tsx/esm/api');
register();
const Docker = (await import('dockerode')).default;
const { rehearseLocally } = await import(${JSON.stringify(rehearsal)});
const docker = new Docker({ socketPath: process.env.DOCKER_HOST.replace(/^unix:\\/\\//, '') });
const manifest = { kind: 'container', name: 'Interrupted', health: '/', apps: [{ id: 'web', name: 'Web', path: '/', device: 'laptop' }] };
const server = "require('node:http').createServer((q, s) => s.end('ok')).listen(Number(process.env.PORT), process.env.HOST)";
const running = rehearseLocally(docker, 'localhost/demo-node:24', manifest, { start: ['node', '-e', server] }, 30000);
process.stdout.write(String(process.pid) + '\\n');
await running.startAsked;
process.kill(process.pid, 'SIGINT');
await running.result.catch(() => {});
await new Promise((resolve) => setTimeout(resolve, 30000));
`;

it('removes the copy being made, and its holder, when the tool is stopped meanwhile', async () => {
  const child = spawn(process.execPath, ['--input-type=module', '-e', CHILD], {
    env: { ...process.env, DOCKER_HOST: testEnv().DOCKER_HOST, CONTAINERS_CONF: testEnv().CONTAINERS_CONF },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  expect(err).toMatch(/stopped by SIGINT; cleaning up/);
  expect(code).toBe(130);
  const owner = `${hostname()}:${out.trim()}`;
  const left = await docker.listContainers({ all: true, filters: { label: [`${OWNER_LABEL}=${owner}`] } });
  expect(left.map((c) => [c.Names, c.State])).toEqual([]);
}, 60_000);
