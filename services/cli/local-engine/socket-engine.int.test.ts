import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import Docker from 'dockerode';
import { afterAll, describe, expect, it } from 'vitest';
import { testEnv } from '../../../test/support/services.js';
import { engineDial } from './engine-dial.js';
import { socketEngine } from './socket-engine.js';

// The redeploy's engine calls over node:http (socket-engine.ts) must answer, and fail, as
// dockerode's do on the same engine: the rest of the tool reads their replies and errors
// (engine-message.ts reads `json.message`, the rehearsal an inspect's State, the sweep a listing).

const socketPath = testEnv().DOCKER_HOST.replace(/^unix:\/\//, '');
const light = socketEngine(socketPath);
const dockerode = new Docker({ socketPath });
const BASE = 'localhost/demo-node:24';
const label = `pitch.socket-engine-test=${randomBytes(4).toString('hex')}`;
// Whatever a failed test left: the containers by their label, the tag by its name.
afterAll(async () => {
  const left = await dockerode.listContainers({ all: true, filters: { label: [label] } });
  await Promise.all(
    left.map((container) =>
      dockerode
        .getContainer(container.Id)
        .remove({ force: true })
        .catch(() => {}),
    ),
  );
  await dockerode
    .getImage(`localhost/socket-engine-test:${label.slice(-8)}`)
    .remove()
    .catch(() => {});
});

/** What a rejected call carried, as the tool reads it. */
const failure = (call: Promise<unknown>) =>
  call.then(
    () => null,
    (err: { statusCode?: number; json?: { message?: string } }) => ({ statusCode: err.statusCode, message: err.json?.message ?? '' }),
  );

describe('socketEngine', () => {
  it('inspects, tags and removes an image as dockerode does, and refuses a missing one the same way', async () => {
    const [ours, theirs] = await Promise.all([light.getImage(BASE).inspect(), dockerode.getImage(BASE).inspect()]);
    expect(ours.Id).toBe(theirs.Id);
    expect(ours.Config).toEqual(theirs.Config);
    const missing = 'localhost/never-built-here:1';
    const [lightMiss, dockerodeMiss] = await Promise.all([
      failure(light.getImage(missing).inspect()),
      failure(dockerode.getImage(missing).inspect()),
    ]);
    expect(lightMiss).toEqual(dockerodeMiss);
    expect(lightMiss?.statusCode).toBe(404);
    const tag = label.slice(-8);
    await light.getImage(BASE).tag({ repo: 'localhost/socket-engine-test', tag });
    expect((await dockerode.getImage(`localhost/socket-engine-test:${tag}`).inspect()).Id).toBe(theirs.Id);
    await light.getImage(`localhost/socket-engine-test:${tag}`).remove();
    expect(await failure(dockerode.getImage(`localhost/socket-engine-test:${tag}`).inspect())).toMatchObject({ statusCode: 404 });
  });

  it('makes, starts, inspects, lists, reads the logs of and removes a container', async () => {
    const name = `socket-engine-test-${randomBytes(4).toString('hex')}`;
    const container = await light.createContainer({
      name,
      Image: BASE,
      Cmd: ['node', '-e', 'console.log("said once")'],
      Labels: { [label.split('=')[0]]: label.split('=')[1] },
    });
    // A container, not a promise: awaiting it gives it back.
    expect((await Promise.resolve(container)).id).toBe(container.id);
    expect((await container.inspect()).Name.replace(/^\//, '')).toBe(name);
    const listed = await light.listContainers({ all: true, filters: { label: [label] } });
    expect(listed.map((c) => c.Id)).toEqual([container.id]);
    expect(listed).toEqual(await dockerode.listContainers({ all: true, filters: { label: [label] } }));
    await container.start();
    await dockerode.getContainer(container.id).wait();
    const logs = (await container.logs({ stdout: true, stderr: true, follow: false })) as unknown as Buffer;
    expect(Buffer.isBuffer(logs) && logs.toString('utf8')).toContain('said once');
    await light.getContainer(container.id).remove({ force: true, v: true });
    expect(await failure(light.getContainer(container.id).inspect())).toEqual(
      await failure(dockerode.getContainer(container.id).inspect()),
    );
  });

  it("refuses a container it cannot make with the engine's message, as dockerode does", async () => {
    const bad = { Image: 'localhost/never-built-here:1', Cmd: ['true'] };
    const [ours, theirs] = await Promise.all([failure(light.createContainer(bad)), failure(dockerode.createContainer(bad))]);
    expect(ours).toEqual(theirs);
    expect(ours?.statusCode).toBeGreaterThanOrEqual(400);
  });

  it("dials the tool's own libpod calls, a stream among them", async () => {
    const ping = await engineDial(light, { method: 'GET', path: '/v4.0.0/libpod/_ping?', statusCodes: { 200: true } });
    expect(String(ping)).toBe('OK');
    const events = (await engineDial(light, {
      method: 'GET',
      path: '/v4.0.0/libpod/images/json?',
      query: { filters: JSON.stringify({ reference: [BASE] }) },
      stream: true,
      statusCodes: { 200: true },
    })) as AsyncIterable<Buffer>;
    let text = '';
    for await (const chunk of events) text += chunk.toString('utf8');
    expect(JSON.parse(text)).toHaveLength(1);
  });

  it('hands anything else to dockerode, loaded at that first use', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `
const { register } = await import('tsx/esm/api');
register();
const { createRequire } = await import('node:module');
const require = createRequire(process.cwd() + '/');
const loaded = () => Object.keys(require.cache).some((file) => /[\\\\/]dockerode[\\\\/]/.test(file));
const { findEngine } = await import('./services/cli/local-engine/local-docker.ts');
const { docker } = await findEngine({ DOCKER_HOST: ${JSON.stringify(testEnv().DOCKER_HOST)} });
const inspected = (await docker.getImage(${JSON.stringify(BASE)}).inspect()).Id;
const before = loaded();
const version = await docker.version();
console.log(JSON.stringify({ inspected: typeof inspected, before, after: loaded(), version: typeof version.Version }));
`,
      ],
      { cwd: process.cwd() },
    );
    expect(JSON.parse(stdout.trim().split('\n').at(-1)!)).toEqual({ inspected: 'string', before: false, after: true, version: 'string' });
  });
});
