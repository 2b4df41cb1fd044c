import { describe, expect, it } from 'vitest';
import type { Rehearsal } from '../../services/cli/deploy-steps/rehearsal.js';
import { uniqueSlug } from '../support/refusal.js';
import { expectRefusal } from './support/expect-refusal.js';
import { fixture, pitch, platformForPitch } from './support/pitch.js';

// `pitch deploy` of container demos, end to end: images built by the real engine (podman's
// Docker-compatible socket) from the offline base image, a local copy rehearsed, the bundle
// uploaded to a real platform whose bundle worker reads it.

const ctx = platformForPitch();

const deploy = async (folder: string, ...flags: string[]) => pitch(['deploy', '--project', uniqueSlug('cli-c'), ...flags], ctx.env, await fixture(folder));

describe('pitch deploy of a container demo', () => {
  it('builds the image, rehearses the story on a local copy, uploads the bundle and makes it live', async () => {
    const slug = uniqueSlug('cli-container');
    const result = await pitch(['deploy', '--project', slug], ctx.env, await fixture('container-app'));
    expect(result.code, result.stderr).toBe(0);

    const project = (await ctx.builder.client.call('listProjects')).find((p) => p.slug === slug)!;
    expect(result.stdout).toMatch(/\/preview\/pp_pre_\S+\n$/);
    const [build] = await ctx.builder.client.call('listBuilds', { params: { projectId: project.id } });
    expect(build).toMatchObject({ kind: 'container', live: true });
    expect(project.liveBuildId).toBe(build.id);
    // The manifest as sent, read as stored (the run.env keys as written: DEMO_MODE).
    const [stored] = await ctx.platform.deps.sql<{ manifest: string }[]>`select manifest::text as manifest from builds where id = ${build.id}`;
    expect(JSON.parse(stored.manifest)).toMatchObject({ kind: 'container', run: { start: ['node', 'server.js'], env: { DEMO_MODE: 'mock' } } });

    // The rehearsal went with the build: health answered, each step's calls passed in order.
    const [row] = await ctx.platform.deps.sql<{ rehearsal: Rehearsal }[]>`select rehearsal from builds where id = ${build.id}`;
    expect(row.rehearsal.health).toMatchObject({ path: '/healthz', status: 200 });
    expect(row.rehearsal.steps).toEqual([
      { id: 'start', result: 'passed', calls: [expect.objectContaining({ call: 'POST /api/reset', status: 200 })] },
      { id: 'buy', result: 'passed', calls: [expect.objectContaining({ call: 'POST /api/cart', status: 201 }), expect.objectContaining({ call: 'POST /api/checkout', status: 200 })] },
      { id: 'look', result: 'nothing-to-run', calls: [] },
    ]);
    // The tour shows what the deploy saw, step by step.
    const tour = await ctx.builder.client.call('getTour', { params: { projectId: project.id } });
    expect(tour).toMatchObject({ reported: true, build: { id: build.id, tool: expect.stringMatching(/^pitch\//) } });
    expect(tour.steps.map((st) => [st.id, st.result, st.calls])).toEqual([
      ['start', 'passed', ['POST /api/reset']],
      ['buy', 'passed', ['POST /api/cart', 'POST /api/checkout']],
      ['look', 'nothing-to-run', []],
    ]);
    const setup = await ctx.builder.client.call('getRoomSetup', { params: { projectId: project.id } });
    expect(setup.pages.map((page) => page.title)).toEqual(['Shop guide']);
    expect(result.stderr).toMatch(/^rehearse +healthy in [\d.]+ s; 3 story steps, 3 calls passed$/m);
  });

  it('stops when there is no Dockerfile', async () => {
    expectRefusal(await deploy('no-dockerfile'), /^pitch: missing Dockerfile: a container build needs a Dockerfile at the project root$/);
  });

  it('stops when the last stage does not work in /app', async () => {
    expectRefusal(await deploy('wrong-workdir'), /^pitch: wrong WORKDIR: the last stage works in \/srv \(WORKDIR on line 3\); it must set WORKDIR \/app$/);
  });

  it('stops when the image has no CMD', async () => {
    expectRefusal(await deploy('no-cmd'), /^pitch: missing CMD: the last stage \(line 1\) has no CMD/);
  });

  it('stops on a secret a build step wrote into the image', async () => {
    const result = await deploy('image-secret');
    expectRefusal(result, /^pitch: a secret in the container image: image \/app\/settings\.js:1 \(AWSAccessKeyID, secretlint aws\)$/);
    expect(result.stderr).toMatch(/^scan +project: .*no secrets$/m);
  });

  it('stops on a secret in the start environment (run.env), naming the variable and never its value', async () => {
    const result = await deploy('env-secret');
    expectRefusal(result, /^pitch: a secret in the start environment: pitch\.json run\.env AWS_ACCESS_KEY_ID \(AWSAccessKeyID, secretlint aws\)$/);
    expect(result.stderr).not.toContain('AKIAFAKE');
  });

  it('stops when the copy exits before it is healthy, with its exit code and last words', async () => {
    const lines = expectRefusal(await deploy('start-crashes'), /^pitch: the local copy stopped \(exit code 1\) before its health path \/healthz answered$/);
    expect(lines[1]).toBe('  its last output: server: SHOP_API_URL is not set, giving up');
  });

  it('says the copy ran out of writable space when it dies on ENOSPC, not "check the start command"', async () => {
    const result = await deploy('fills-tmp');
    const lines = expectRefusal(result, /^pitch: the local copy stopped \(exit code 1\) before its health path \/healthz answered$/);
    expect(lines[1]).toMatch(/^ {2}the copy ran out of writable space: it may write 64 MB to \/app and 64 MB to \/tmp \(RUNNER_COPY_WRITABLE_MB\).*; it said: .*ENOSPC/);
    expect(result.stderr).not.toContain('check the start command');
  });

  it('stops when the copy dies after the story\'s calls, with its last output', async () => {
    const result = await deploy('crash-after-call');
    const lines = expectRefusal(result, /^pitch: the local copy stopped \(exit code 3\) after the story's calls$/);
    expect(lines[1]).toBe("  its last output: Error: EROFS: read-only file system, open '/app/db.json'");
  });

  it('stops when the copy never answers its health path', async () => {
    const result = await deploy('health-never', '--health-timeout', '2');
    expectRefusal(result, /^pitch: the local copy's health path \/healthz did not answer 200 within 2 s \(it answered 503\)$/);
  });

  it('stops when a story step call fails on the copy', async () => {
    const result = await deploy('story-fails');
    expectRefusal(result, /^pitch: the rehearsal failed: story step checkout, call 1 \(POST \/api\/checkout\) answered 409$/);
    expect(result.stderr).toMatch(/^scan +image: .*no secrets$/m);
  });
});
