import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import Docker from 'dockerode';
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { startLocalCopy } from '../../services/cli/local-engine/local-copy.js';
import { flakyGateway } from '../support/flaky-gateway.js';
import { uniqueSlug } from '../support/refusal.js';
import { testEnv } from '../support/services.js';
import { fixture, pitch, platformForPitch } from './support/pitch.js';

// Issue 48, item 1, end to end: a redeploy whose only change is a file the Dockerfile copies after
// its last RUN lays that layer in-process, has the local engine pull the image by digest, rehearses
// that very image and pushes only the new layer; a change an earlier step reads, or a changed RUN,
// is built by the engine, and the deploy says why. Real platform, registry and podman.

const ctx = platformForPitch();
const docker = new Docker({ socketPath: testEnv().DOCKER_HOST.replace(/^unix:\/\//, '') });
const slug = uniqueSlug('cli-inproc');
afterAll(async () => {
  for (const tag of ['deploy', 'in-process'])
    await docker
      .getImage(`localhost/pitch-${slug}:${tag}`)
      .remove()
      .catch(() => {});
});

// The package file is read by a step before the RUN; server.js only after it.
const DOCKERFILE = `FROM localhost/demo-node:24
WORKDIR /app
COPY package.json .
RUN ["node", "-e", "require('node:fs').readFileSync('/app/package.json')"]
COPY server.js .
CMD ["node", "server.js"]
`;

/** The live build's image id (Build.digest: its config's digest). */
const liveBuild = async () => {
  const project = (await ctx.builder.client.call('listProjects')).find((p) => p.slug === slug)!;
  const builds = await ctx.builder.client.call('listBuilds', { params: { projectId: project.id } });
  return builds.find((build) => build.id === project.liveBuildId)!.digest;
};

/** The ids of the images whose names ever included `name` (podman's names history, libpod's list). */
const imagesOnceNamed = async (name: string) => {
  const listed = (await new Promise<unknown>((resolve, reject) =>
    docker.modem.dial({ path: '/v4.0.0/libpod/images/json?', method: 'GET', options: {}, statusCodes: { 200: true } }, (err, body) =>
      err ? reject(err) : resolve(body),
    ),
  )) as { Id: string; History?: string[] }[];
  return listed.filter((image) => image.History?.includes(name)).map((image) => image.Id);
};

describe('pitch deploy lays the files copied after the last RUN without the engine', () => {
  it('takes the in-process path for such a change, rehearses that image, and falls back to the engine for any other', async () => {
    const dir = await fixture('container-app');
    await writeFile(join(dir, 'Dockerfile'), DOCKERFILE);
    await writeFile(join(dir, 'package.json'), '{"name":"shop"}\n');
    // Every deploy here goes through a pass-through that notes what it asks of the platform.
    const asked: string[] = [];
    const gateway = await flakyGateway(ctx.platform.baseUrl, (req) => (asked.push(`${req.method} ${req.url?.split('?')[0]}`), 'pass'));
    onTestFinished(() => gateway.close());
    const env = { ...ctx.env, api: gateway.origin };
    const deploy = () => pitch(['deploy', '--project', slug], env, dir);
    const server = join(dir, 'server.js');
    const original = await readFile(server, 'utf8');

    const first = await deploy();
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toMatch(/^build +image built in /m);

    // One line of the code the last COPY copies: one new layer, laid here, and only it sent.
    await writeFile(server, original.replace("demo: 'container app'", "demo: 'container app, changed'"));
    asked.length = 0;
    const timed = await pitch(['deploy', '--project', slug], { ...env, extra: { PITCH_TIMINGS: '1' } }, dir);
    const changed = { ...timed, stderr: timed.stderr.replace(/^\[[\d.]+ s\] /gm, '') };
    expect(changed.code, changed.stderr).toBe(0);
    // Read, laid, pulled and its copy started as the tool started, from this machine's record of
    // the live build (head-start.ts); the deploy found the same live build and took it.
    expect(changed.stderr).toMatch(/· head start taken$/m);
    // The project folder was read and linted while the engine pulled; the deploy's scan took those answers.
    expect(changed.stderr).toMatch(/· project folder scanned ahead$/m);
    expect(changed.stderr).toMatch(/^scan +project: \d+ text files, 0 binary, no secrets$/m);
    // The live build's config and its last COPY's layer were kept on this machine by the first
    // deploy (kept-blobs.ts), and its kept layers' sizes recorded: nothing is read from the registry
    // before the rehearsal.
    expect(changed.stderr).toMatch(/· live build's config read, kept on this machine$/m);
    expect(changed.stderr).toMatch(/· kept layers' sizes: [1-9]\d* recorded, 0 asked of the registry$/m);
    expect(changed.stderr).toMatch(
      /^build +image laid without the engine in [\d.]+ s: 1 new layer \([\d.]+ K?B\) from the files its last COPY steps copy; the live build's \d+ layers? below kept$/m,
    );
    expect(changed.stderr).not.toMatch(/image built in/);
    expect(changed.stderr).toMatch(/^rehearse +healthy in /m);
    expect(changed.stderr).toMatch(/^push +sent [\d.]+ K?B in 1 new layer, \d+ layers already there /m);
    // The manifest went up beside the rehearsal; createBuild, after it passed, named it.
    expect(changed.stderr).toMatch(/· manifest sent, beside the rehearsal$/m);
    expect(changed.stderr).toMatch(/^push +sent .*; sent beside the rehearsal$/m);
    // The workspace's projects and its account asked once each, beside the plan: the project is
    // found in that list, and the registry token names both (one round trip past them).
    const times = (request: string) => asked.filter((seen) => seen === request).length;
    expect(times('GET /api/projects')).toBe(1);
    expect(times('GET /api/me/account')).toBe(1);
    expect(times('GET /v2/token')).toBe(1);
    // The image that went live is the one the engine holds and rehearsed, and it serves the change.
    const live = await liveBuild();
    const local = await docker.getImage(`localhost/pitch-${slug}:in-process`).inspect();
    expect(local.Id.replace(/^(sha256:)?/, 'sha256:')).toBe(live);
    // Its one name is the tag: the pull's name (the tool's registry, gone) was dropped.
    expect(local.RepoTags).toEqual([`localhost/pitch-${slug}:in-process`]);
    expect(local.RepoDigests?.filter((name) => name.includes('pitch-pull-'))).toEqual([]);
    const copy = await startLocalCopy(docker, `localhost/pitch-${slug}:in-process`, ['node', 'server.js'], {});
    try {
      let body = '';
      for (let tries = 0; tries < 100 && !body; tries++) {
        body = await fetch(`${copy.baseUrl}/`).then(
          (res) => res.text(),
          async () => (await new Promise((resolve) => setTimeout(resolve, 100)), ''),
        );
      }
      expect(JSON.parse(body)).toMatchObject({ demo: 'container app, changed' });
    } finally {
      await copy.remove();
    }

    // The rehearsal starts the laid image: a change that breaks the health path is refused.
    await writeFile(server, original.replace("'GET /healthz': () => [200,", "'GET /healthz': () => [500,"));
    const broken = await deploy();
    expect(broken.code).not.toBe(0);
    expect(broken.stderr).toMatch(/^build +image laid without the engine/m);
    expect(broken.stderr).toMatch(/health path \/healthz did not answer 200/);
    expect(await liveBuild()).toBe(live);

    // A file a step before the RUN reads: the engine builds, and the deploy says why.
    await writeFile(server, original);
    await writeFile(join(dir, 'package.json'), '{"name":"shop","version":"2.0.0"}\n');
    const dependencies = await deploy();
    expect(dependencies.code, dependencies.stderr).toBe(0);
    expect(dependencies.stderr).toMatch(/^build +with the engine: files an earlier step reads changed \(the COPY or ADD on line 3\)$/m);
    expect(dependencies.stderr).toMatch(/^build +image built in /m);

    // A changed RUN line: the engine builds, and says so.
    await writeFile(join(dir, 'Dockerfile'), DOCKERFILE.replace("readFileSync('/app/package.json')", "statSync('/app/package.json')"));
    const run = await deploy();
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/^build +with the engine: the Dockerfile up to its last RUN, or its base image, changed$/m);
    expect(run.stderr).toMatch(/^build +image built in /m);

    // After an engine build, the next change to the code is laid in-process again. The blobs this
    // machine kept are altered first: their bytes no longer hash to their names, so they are read
    // from the registry instead, and the deploy is the same.
    const store = join(ctx.env.configHome, 'pitch', 'blobs');
    const kept = await readdir(store);
    expect(kept.length).toBeGreaterThan(0);
    for (const name of kept) await writeFile(join(store, name), 'not the blob');
    await writeFile(server, `${original}\n// one more line\n`);
    const again = await pitch(['deploy', '--project', slug], { ...env, extra: { PITCH_TIMINGS: '1' } }, dir);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/· live build's config read from the registry$/m);
    expect(again.stderr).toMatch(/ build +image laid without the engine in /m);
    expect(again.stderr).toMatch(/ push +sent [\d.]+ K?B in 1 new layer, /m);

    // Another build made live meanwhile (from elsewhere): the head start, begun from this folder's
    // record (whose build it took as the live one, so "nothing changed"), is ended, and the deploy
    // reads the folder again against the platform's live build and deploys.
    const project = (await ctx.builder.client.call('listProjects')).find((p) => p.slug === slug)!;
    const older = (await ctx.builder.client.call('listBuilds', { params: { projectId: project.id } })).at(-1)!;
    await ctx.builder.client.call('makeLive', { params: { projectId: project.id, buildId: older.id } });
    const elsewhere = await pitch(['deploy', '--project', slug], { ...env, extra: { PITCH_TIMINGS: '1' } }, dir);
    expect(elsewhere.code, elsewhere.stderr).toBe(0);
    expect(elsewhere.stderr).toMatch(/· head start not this deploy's: ended$/m);
    expect(elsewhere.stderr).toMatch(/ rehearse +healthy in /m);
    expect(await liveBuild()).not.toBe(older.digest);
    // The same with a change: the head start had laid, pulled and started a copy of its own, which
    // is stopped; the deploy builds on the platform's live build and rehearses its own copy.
    await ctx.builder.client.call('makeLive', { params: { projectId: project.id, buildId: older.id } });
    await writeFile(server, `${original}\n// one more line\n// and one more\n`);
    const changedElsewhere = await pitch(['deploy', '--project', slug], { ...env, extra: { PITCH_TIMINGS: '1' } }, dir);
    expect(changedElsewhere.code, changedElsewhere.stderr).toBe(0);
    expect(changedElsewhere.stderr).toMatch(/· rehearsal started beside the scan$/m);
    expect(changedElsewhere.stderr).toMatch(/ rehearse +healthy in /m);
    expect(changedElsewhere.stderr.indexOf("head start not this deploy's: ended")).toBeGreaterThan(
      changedElsewhere.stderr.indexOf('rehearsal started beside the scan'),
    );
    await writeFile(server, `${original}\n// one more line\n`);
    expect((await deploy()).code).toBe(0);

    // A secret in a file the last COPY copies: the image is laid, pulled and its rehearsal copy
    // started beside the folder's scan (early-rehearsal.ts); the scan's refusal is the deploy's
    // answer, and neither the copy nor the refused image is left in the engine.
    const key = ['AKIA', 'FAKE'.repeat(4)].join('');
    await writeFile(server, `${original}\n// one more line\n// ${key}\n`);
    const secret = await pitch(['deploy', '--project', slug], { ...env, extra: { PITCH_TIMINGS: '1' } }, dir);
    expect(secret.code).not.toBe(0);
    expect(secret.stderr).toMatch(/^pitch: a secret in the project folder: /m);
    expect(secret.stderr).toMatch(/· rehearsal started beside the scan$/m);
    // Found by the scan begun ahead: its finding is still the deploy's refusal.
    expect(secret.stderr).toMatch(/· project folder scanned ahead$/m);
    expect(await docker.listContainers({ all: true, filters: { label: ['pitch.rehearsal=true'] } })).not.toContainEqual(
      expect.objectContaining({ Image: `localhost/pitch-${slug}:in-process` }),
    );
    await expect(docker.getImage(`localhost/pitch-${slug}:in-process`).inspect()).rejects.toThrow();
    // Removed, not only untagged: no image that ever held the tag is left under another name.
    expect(await imagesOnceNamed(`localhost/pitch-${slug}:in-process`)).toEqual([]);
    await writeFile(server, `${original}\n// one more line\n`);

    // Only metadata after the last RUN changed: a new config over the live layers, no engine build,
    // no layer sent; the image that goes live has the new Env.
    const changedRun = DOCKERFILE.replace("readFileSync('/app/package.json')", "statSync('/app/package.json')");
    await writeFile(
      join(dir, 'Dockerfile'),
      changedRun.replace('CMD ["node", "server.js"]', 'ENV SHOP=open\nLABEL shop=open\nCMD ["node", "server.js"]'),
    );
    const metadata = await deploy();
    expect(metadata.code, metadata.stderr).toBe(0);
    expect(metadata.stderr).toMatch(
      /^build +image laid without the engine in [\d.]+ s: the live build's \d+ layers kept; its config's Env, Labels written from the steps after the last RUN$/m,
    );
    expect(metadata.stderr).toMatch(/^push +sent [\d.]+ K?B in 0 new layers, /m);
    const relabelled = await docker.getImage(`localhost/pitch-${slug}:in-process`).inspect();
    expect(relabelled.Config.Env).toContain('SHOP=open');
    expect(relabelled.Config.Labels).toMatchObject({ shop: 'open' });
    expect(relabelled.Id.replace(/^(sha256:)?/, 'sha256:')).toBe(await liveBuild());

    // A metadata step it cannot work out for sure (a variable the engine expands): the engine builds, and says why.
    await writeFile(join(dir, 'Dockerfile'), changedRun.replace('CMD ["node", "server.js"]', 'ENV SHOP=$HOME\nCMD ["node", "server.js"]'));
    const expanded = await deploy();
    expect(expanded.code, expanded.stderr).toBe(0);
    expect(expanded.stderr).toMatch(
      /^build +with the engine: the ENV on line 6 has a variable, an escape or a continuation, which the engine expands$/m,
    );
    expect(expanded.stderr).toMatch(/^build +image built in /m);
  }, 600_000);
});
