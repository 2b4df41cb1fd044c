import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ApiError } from '@demo-rooms/contract';
import { demoBundle } from '../support/runner/demo-bundle.js';
import type { TestRunner } from '../support/runner/test-runner.js';
import type { Platform } from '../support/platform.js';
import { platformWithRunner } from '../support/suites.js';
import { uniqueSlug } from '../support/refusal.js';
import { waitFor } from '../support/wait-for.js';
import { configHome, pitch, type PitchEnv } from './support/pitch.js';

// Issue 13: a builder reads why their demo stopped. A real copy crashes after its first request;
// GET /api/projects/:projectId/exits and `pitch logs` show its exit code and last output, without
// the terminal controls the copy printed (issue 28, L5).

const crasher = `
require('node:http').createServer((req, res) => {
  if (req.url === '/healthz') { res.writeHead(200); return res.end('ok'); }
  res.writeHead(201); res.end('{}', () => {
    // Terminal controls a copy might print: clear the screen, an OSC 8 link, a bare CR, and the secret split by an escape.
    console.error('\\x1b[2J\\x1b]8;;https://evil.example/\\x07click here\\x1b]8;;\\x07\\r');
    console.error('Error: EROFS: read-only file system, token ' + process.env.API_TOKEN.slice(0, 6) + '\\x1b[0m' + process.env.API_TOKEN.slice(6));
    process.exit(3);
  });
}).listen(process.env.PORT, process.env.HOST);`;

let platform: Platform;
let runner: TestRunner;
platformWithRunner((p, r) => ([platform, runner] = [p, r]));

describe('the exits of a container demo', () => {
  it('are read by the builder through the api and `pitch logs`, and are a 404 to another workspace', async () => {
    const person = await platform.person({ plan: 'pro' });
    const { client, token } = person;
    const slug = uniqueSlug('exits');
    const project = await client.call('createProject', { body: { slug, name: 'Crash demo' } });
    const bytes = await demoBundle();
    const { uploadId, putUrl } = await client.call('startUpload', {
      params: { projectId: project.id },
      body: { kind: 'container', sizeBytes: bytes.length },
    });
    expect((await platform.fetch(putUrl, { method: 'PUT', token, body: bytes })).status).toBe(204);
    const manifest = {
      kind: 'container',
      name: 'Crash demo',
      health: '/healthz',
      apps: [{ id: 'web', name: 'Web', path: '/', device: 'laptop' }],
      run: { start: ['node', '-e', crasher], env: { API_TOKEN: 'tok_FAKEfakeFAKEfake9876' } },
    };
    const build = await client.call('createBuild', { params: { projectId: project.id }, body: { uploadId, manifest: manifest as never } });
    await client.call('makeLive', { params: { projectId: project.id, buildId: build.id } });
    expect(await client.call('listExits', { params: { projectId: project.id } })).toEqual([]);

    // A viewer's copy answers its first call, then dies.
    const session = randomUUID();
    const [{ workspaceId }] = await platform.deps.sql<
      { workspaceId: string }[]
    >`select workspace_id from projects where id = ${project.id}`;
    await runner.client.enter(session, { workspaceId, projectId: project.id, buildId: build.id });
    expect((await runner.until(session, ['running', 'failed'])).state).toBe('running');
    expect((await runner.client.calls(session, [{ method: 'POST', path: '/items' }])).outcomes[0].status).toBe(201);
    expect(await runner.until(session, ['gone'])).toMatchObject({ detail: 'exited' });

    const exits = await waitFor('the exit recorded', async () => {
      const list = await client.call('listExits', { params: { projectId: project.id } });
      return list.length ? list : null;
    });
    expect(exits).toEqual([
      expect.objectContaining({
        buildId: build.id,
        when: 'crash',
        exitCode: 3,
        oom: false,
        output: 'click here\nError: EROFS: read-only file system, token ***',
      }),
    ]);
    expect((await client.call('containerUsage')).crashes).toBe(1);

    // Another workspace's builder gets a 404, as for a project that does not exist.
    const stranger = await platform.person({ plan: 'pro' });
    const refused = await stranger.client.call('listExits', { params: { projectId: project.id } }).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(ApiError);
    expect((refused as ApiError).status).toBe(404);

    const env: PitchEnv = { api: platform.baseUrl, token, configHome: await configHome() };
    const asJson = await pitch(['logs', '--project', slug, '--json'], env);
    expect(asJson.code, asJson.stderr).toBe(0);
    expect(JSON.parse(asJson.stdout)).toEqual(exits);
    const text = await pitch(['logs', '--project', slug], env);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain(`copy ${exits[0].copyId} of build ${build.id}: stopped after it was ready, exit code 3`);
    expect(text.stdout).toContain('  click here\n  Error: EROFS: read-only file system, token ***');
    expect(text.stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    expect(text.stdout).not.toContain('evil.example');
  });
});
