import { appendFile, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import Docker from 'dockerode';
import { afterAll, describe, expect, it } from 'vitest';
import type { Rehearsal } from '../../services/cli/deploy-steps/rehearsal.js';
import { uniqueSlug } from '../support/refusal.js';
import { testEnv } from '../support/services.js';
import { expectRefusal } from './support/expect-refusal.js';
import { fixture, pitch, platformForPitch } from './support/pitch.js';

// `pitch deploy` of container demos, end to end: images built by the real engine (podman's
// Docker-compatible socket) from the offline base image, a local copy rehearsed, the bundle
// uploaded to a real platform whose bundle worker reads it.

const ctx = platformForPitch();

const engine = () => new Docker({ socketPath: testEnv().DOCKER_HOST.replace(/^unix:\/\//, '') });

/** The copies of the project's image left once the removal the deploy handed over at its end has had up to 20 s. */
async function copiesOnceRemoved(slug: string): Promise<Docker.ContainerInfo[]> {
  const filters = { ancestor: [`localhost/pitch-${slug}:deploy`] };
  let copies = await engine().listContainers({ all: true, filters });
  for (let tries = 0; tries < 200 && copies.length > 0; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    copies = await engine().listContainers({ all: true, filters });
  }
  return copies;
}
const imageExists = (tag: string) =>
  engine()
    .getImage(tag)
    .inspect()
    .then(
      () => true,
      () => false,
    );

// A deploy keeps the project's image tagged as its layer cache; this file's projects are not
// deployed again, so their images go when it ends.
const slugs = new Set<string>();
const slugFor = (prefix: string) => {
  const slug = uniqueSlug(prefix);
  slugs.add(slug);
  return slug;
};
afterAll(async () => {
  for (const slug of slugs)
    for (const tag of ['deploy', 'in-process'])
      await engine()
        .getImage(`localhost/pitch-${slug}:${tag}`)
        .remove()
        .catch(() => {});
});

const deploy = async (folder: string, ...flags: string[]) =>
  pitch(['deploy', '--project', slugFor('cli-c'), ...flags], ctx.env, await fixture(folder));

describe('pitch deploy of a container demo', () => {
  it('builds the image, rehearses the story on a local copy, uploads the bundle and makes it live', async () => {
    const slug = slugFor('cli-container');
    const result = await pitch(['deploy', '--project', slug], ctx.env, await fixture('container-app'));
    expect(result.code, result.stderr).toBe(0);

    const project = (await ctx.builder.client.call('listProjects')).find((p) => p.slug === slug)!;
    expect(result.stdout).toMatch(/\/preview\/pp_pre_\S+\n$/);
    const [build] = await ctx.builder.client.call('listBuilds', { params: { projectId: project.id } });
    expect(build).toMatchObject({ kind: 'container', live: true });
    expect(project.liveBuildId).toBe(build.id);
    // The manifest as sent, read as stored (the run.env keys as written: DEMO_MODE).
    const [stored] = await ctx.platform.deps.sql<
      { manifest: string }[]
    >`select manifest::text as manifest from builds where id = ${build.id}`;
    expect(JSON.parse(stored.manifest)).toMatchObject({
      kind: 'container',
      run: { start: ['node', 'server.js'], env: { DEMO_MODE: 'mock' } },
    });

    // The rehearsal went with the build: health answered, each step's calls passed in order.
    const [row] = await ctx.platform.deps.sql<{ rehearsal: Rehearsal }[]>`select rehearsal from builds where id = ${build.id}`;
    expect(row.rehearsal.health).toMatchObject({ path: '/healthz', status: 200 });
    expect(row.rehearsal.steps).toEqual([
      { id: 'start', result: 'passed', calls: [expect.objectContaining({ call: 'POST /api/reset', status: 200 })] },
      {
        id: 'buy',
        result: 'passed',
        calls: [
          expect.objectContaining({ call: 'POST /api/cart', status: 201 }),
          expect.objectContaining({ call: 'POST /api/checkout', status: 200 }),
        ],
      },
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
    // The rehearsal copy is removed by a process of its own once the tool has ended (after-exit.ts).
    expect(await copiesOnceRemoved(slug)).toEqual([]);
  });

  it('stops when there is no Dockerfile', async () => {
    expectRefusal(await deploy('no-dockerfile'), /^pitch: missing Dockerfile: a container build needs a Dockerfile at the project root$/);
  });

  it('stops when the last stage does not work in /app', async () => {
    expectRefusal(
      await deploy('wrong-workdir'),
      /^pitch: wrong WORKDIR: the last stage works in \/srv \(WORKDIR on line 3\); it must set WORKDIR \/app$/,
    );
  });

  it('stops when the image has no CMD', async () => {
    expectRefusal(await deploy('no-cmd'), /^pitch: missing CMD: the last stage \(line 1\) has no CMD/);
  });

  it('stops on a secret a build step wrote into the image, and stops the rehearsal that ran beside the scan', async () => {
    const slug = slugFor('cli-secret');
    const result = await pitch(['deploy', '--project', slug], ctx.env, await fixture('image-secret'));
    expectRefusal(result, /^pitch: a secret in the container image: image \/app\/settings\.js:1 \(AWSAccessKeyID, secretlint aws\)$/);
    expect(result.stderr).toMatch(/^scan +project: .*no secrets$/m);
    // The rehearsal started beside the image's scan: its copy is gone, and nothing was made.
    const copies = await engine().listContainers({ all: true, filters: { ancestor: [`localhost/pitch-${slug}:deploy`] } });
    expect(copies).toEqual([]);
    expect(result.stderr).not.toMatch(/^(rehearse +healthy|push|created) /m);
    expect(await ctx.platform.deps.sql`select 1 from projects where slug = ${slug}`).toHaveLength(0);
  });

  it('stops on a secret in the start environment (run.env), naming the variable and never its value', async () => {
    const result = await deploy('env-secret');
    expectRefusal(
      result,
      /^pitch: a secret in the start environment: pitch\.json run\.env AWS_ACCESS_KEY_ID \(AWSAccessKeyID, secretlint aws\)$/,
    );
    expect(result.stderr).not.toContain('AKIAFAKE');
  });

  it('stops when the copy exits before it is healthy, with its exit code and last words', async () => {
    const lines = expectRefusal(
      await deploy('start-crashes'),
      /^pitch: the local copy stopped \(exit code 1\) before its health path \/healthz answered$/,
    );
    expect(lines[1]).toBe('  its last output: server: SHOP_API_URL is not set, giving up');
  });

  it('says the copy ran out of writable space when it dies on ENOSPC, not "check the start command"', async () => {
    const result = await deploy('fills-tmp');
    const lines = expectRefusal(result, /^pitch: the local copy stopped \(exit code 1\) before its health path \/healthz answered$/);
    expect(lines[1]).toMatch(
      /^ {2}the copy ran out of writable space: it may write 64 MB to \/app and 64 MB to \/tmp \(RUNNER_COPY_WRITABLE_MB\).*; it said: .*ENOSPC/,
    );
    expect(result.stderr).not.toContain('check the start command');
  });

  it("stops when the copy dies after the story's calls, with its last output", async () => {
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

  it('makes no build when a redeploy fails its rehearsal, and sends its new layer at most: the live build stays', async () => {
    const slug = slugFor('cli-rehearse');
    const dir = await fixture('container-app');
    const first = await pitch(['deploy', '--project', slug], ctx.env, dir);
    expect(first.code, first.stderr).toBe(0);
    const project = (await ctx.builder.client.call('listProjects')).find((p) => p.slug === slug)!;

    // The server now exits as it starts: its image is new (one new layer), its rehearsal fails.
    await appendFile(join(dir, 'server.js'), '\nprocess.exit(3);\n');
    const failed = await pitch(['deploy', '--project', slug], ctx.env, dir);
    expectRefusal(failed, /^pitch: the local copy stopped \(exit code 3\) before its health path \/healthz answered$/);
    // Laid without the engine (only a file the last COPY copies changed) and rehearsed as pulled
    // into the engine from this machine.
    expect(failed.stderr).toMatch(/^scan +image: 1 new layer laid from your files, .*no secrets$/m);
    expect(failed.stderr).not.toMatch(/^(push|created|live) /m);

    // The new layer was laid on disk and sent beside the rehearsal (docs/decisions/cli-deploy.md):
    // the repository may hold it, unreferenced until the registry's collection, but no manifest
    // names it and no build was made.
    const { RootFS } = await engine().getImage(`localhost/pitch-${slug}:in-process`).inspect();
    const account = await ctx.builder.client.call('whoami', {});
    const repository = `${account.workspace.id}/${project.id}`;
    const grant = await ctx.platform.fetch(
      `/v2/token?service=demo-rooms-registry&scope=${encodeURIComponent(`repository:${repository}:pull`)}`,
      {
        headers: { authorization: `Bearer ${ctx.builder.token}` },
      },
    );
    const { token, registry } = grant.body as { token: string; registry: string };
    const head = (digest: string) =>
      fetch(`${registry}/v2/${repository}/blobs/${digest}`, { method: 'HEAD', headers: { authorization: `Bearer ${token}` } });
    expect((await head(RootFS.Layers![0])).status).toBe(200); // the base, sent by the first deploy
    const builds = await ctx.builder.client.call('listBuilds', { params: { projectId: project.id } });
    expect(builds).toHaveLength(1);
    expect(builds[0].live).toBe(true);
  }, 300_000);

  it("sends a second project's base layers once: they are mounted from the workspace's other project, not uploaded", async () => {
    const first = await pitch(['deploy', '--project', slugFor('cli-base-a')], ctx.env, await fixture('container-app'));
    expect(first.code, first.stderr).toBe(0);
    const secondDir = await fixture('container-app');
    await appendFile(join(secondDir, 'server.js'), '\n// the second project\n');
    const second = await pitch(['deploy', '--project', slugFor('cli-base-b')], ctx.env, secondDir);
    expect(second.code, second.stderr).toBe(0);
    const push =
      /^push +sent ([\d.]+) (B|KB|MB) in \d+ new layers?, (\d+) layers? \([\d.]+ [KMG]B\) taken from your workspace's other projects, not sent, /m.exec(
        second.stderr,
      );
    expect(push, second.stderr).not.toBeNull();
    const sent = Number(push![1]) * { B: 1, KB: 1024, MB: 1024 * 1024 }[push![2] as 'B'];
    expect(sent).toBeLessThan(1024 * 1024);
    expect(Number(push![3])).toBeGreaterThan(0);
    // Nor were they read out of the engine for the push (a save of the whole image, 134 MB for the
    // Node base): only the layers no repository of the workspace holds.
    const scan =
      /^scan +image: read (\d+) new layers? \(([\d.]+) (B|KB|MB)\) from the engine, .*; the other (\d+) the platform already has, not read;/m.exec(
        second.stderr,
      );
    expect(scan, second.stderr).not.toBeNull();
    expect(Number(scan![4])).toBe(Number(push![3]));
    expect(scan![3]).not.toBe('MB');
  }, 300_000);

  it("mounts a redeploy's layer another project of the workspace holds: neither read out of the engine nor sent", async () => {
    // Project A's image has a layer of its own (a RUN step); project B, deployed without it, then
    // takes up the same step: the engine's build cache gives B the very layer A pushed. A workspace
    // of its own, with room for two more projects.
    const env = { ...ctx.env, token: (await ctx.platform.person({ plan: 'pro' })).token };
    const step = `RUN mkdir -p /app/shared-${Date.now()}`;
    const withStep = (dockerfile: string) => dockerfile.replace('COPY server.js .', `${step}\nCOPY server.js .`);
    const first = await fixture('container-app');
    await writeFile(join(first, 'Dockerfile'), withStep(await readFile(join(first, 'Dockerfile'), 'utf8')));
    const a = await pitch(['deploy', '--project', slugFor('cli-layer-a')], env, first);
    expect(a.code, a.stderr).toBe(0);
    const second = await fixture('container-app');
    await appendFile(join(second, 'server.js'), '\n// project B\n');
    const slugB = slugFor('cli-layer-b');
    const b = await pitch(['deploy', '--project', slugB], env, second);
    expect(b.code, b.stderr).toBe(0);
    await writeFile(join(second, 'Dockerfile'), withStep(await readFile(join(second, 'Dockerfile'), 'utf8')));
    const again = await pitch(['deploy', '--project', slugB], env, second);
    expect(again.code, again.stderr).toBe(0);
    // Only its COPY layer was new anywhere: the RUN layer was found in A's repository as the image was read.
    expect(again.stderr).toMatch(/^scan +image: read 1 new layer \([\d.]+ (B|KB)\) from the engine, /m);
    expect(again.stderr).toMatch(
      /^push +sent [\d.]+ (B|KB) in 1 new layer, 1 layer \([\d.]+ (B|KB)\) taken from your workspace's other projects, not sent, /m,
    );
  }, 300_000);

  it('refuses a container demo on Free before any build, creating nothing, with a hint that leads somewhere', async () => {
    const free = await ctx.platform.person({ plan: 'free' });
    const slug = slugFor('cli-free');
    const result = await pitch(['deploy', '--project', slug], { ...ctx.env, token: free.token }, await fixture('container-app'));
    const lines = expectRefusal(
      result,
      /^pitch: the free plan allows static demos only: this container demo was not built, and nothing was created$/,
    );

    // No build ran: the step never started, and the engine holds no image for the project.
    expect(result.stderr).not.toMatch(/^build /m);
    expect(await imageExists(`localhost/pitch-${slug}:deploy`)).toBe(false);
    // Nothing was created on the platform: no project, no upload.
    const { sql } = ctx.platform.deps;
    expect(await sql`select 1 from projects where slug = ${slug}`).toHaveLength(0);
    expect(
      await sql`select 1 from uploads u join personal_workspaces pw on pw.workspace_id = u.workspace_id join people p on p.id = pw.person_id where p.email = ${free.email}`,
    ).toHaveLength(0);

    // The hint names the platform's own page of the plan, and that address is one of the web app's.
    const usage = lines[1].match(/see your plan at (\S+)/)?.[1];
    expect(usage).toBe(`${ctx.platform.baseUrl}/usage`);
    const page = await fetch(usage!, { redirect: 'manual' });
    expect(page.status).toBe(302);
    expect(page.headers.get('location')).toBe('/login?next=%2Fusage');
  });

  it('answers an unchanged redeploy with "nothing changed": the cached image is not uploaded and no build is made', async () => {
    const slug = slugFor('cli-same');
    const dir = await fixture('container-app');
    const builds = async () =>
      ctx.platform.deps.sql<{ id: string }[]>`select b.id from builds b join projects p on p.id = b.project_id where p.slug = ${slug}`;
    // What was sent: a bundle upload, or (a platform with a registry, issue 32) a pushed image.
    const uploads = async () =>
      ctx.platform.deps.sql`
        select 1 from uploads u join projects p on p.id = u.project_id where p.slug = ${slug}
        union all
        select 1 from builds b join projects p on p.id = b.project_id where p.slug = ${slug} and b.image_manifest is not null`;

    const first = await pitch(['deploy', '--project', slug], ctx.env, dir);
    expect(first.code, first.stderr).toBe(0);
    expect(await builds()).toHaveLength(1);

    // The same sources again: the digest of the build's inputs is the one the live build was
    // made from (issue 48, item 3), so the deploy stops before the engine builds anything. The
    // project's tag is moved aside meanwhile: an engine build would have made it again.
    const tag = `localhost/pitch-${slug}:deploy`;
    const aside = `localhost/pitch-${slug}:aside`;
    await engine()
      .getImage(tag)
      .tag({ repo: `localhost/pitch-${slug}`, tag: 'aside' });
    await engine().getImage(tag).remove();
    const second = await pitch(['deploy', '--project', slug], ctx.env, dir);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toMatch(/^read +\d+ files, [\d.]+ K?B to build from \([\d.]+ s\)$/m);
    expect(second.stderr).toMatch(/^unchanged .*nothing changed, nothing built or uploaded, no build made/m);
    expect(second.stderr).not.toMatch(/^(build|scan|rehearse|push|upload|created) /m);
    expect(second.stdout).toMatch(/\/preview\/pp_pre_\S+\n$/);
    expect(await imageExists(tag)).toBe(false);
    expect(await builds()).toHaveLength(1);
    expect(await uploads()).toHaveLength(1);
    await engine()
      .getImage(aside)
      .tag({ repo: `localhost/pitch-${slug}`, tag: 'deploy' });
    await engine().getImage(aside).remove();

    // --force deploys the same sources anyway.
    const forced = await pitch(['deploy', '--project', slug, '--force'], ctx.env, dir);
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.stderr).not.toMatch(/nothing changed/);
    expect(await builds()).toHaveLength(2);

    // Only pitch.json changed: the live build's image is not read out of the engine again (its
    // layers were scanned when it was deployed, and the repository has them all); the rehearsal
    // still runs, and the new build is made from the same pushed layers.
    const manifestFile = join(dir, 'pitch.json');
    const edited = JSON.parse(await readFile(manifestFile, 'utf8')) as { name: string };
    await writeFile(manifestFile, JSON.stringify({ ...edited, name: `${edited.name} again` }));
    const renamed = await pitch(['deploy', '--project', slug], ctx.env, dir);
    expect(renamed.code, renamed.stderr).toBe(0);
    expect(renamed.stderr).toMatch(/^scan +image: the live build's image, its layers scanned when it was deployed and not read again;/m);
    expect(renamed.stderr).toMatch(/^rehearse +healthy in /m);
    expect(renamed.stderr).toMatch(/^push +sent 0 B in 0 new layers, \d+ layers already there /m);
    const [renamedBuild] = await ctx.platform.deps.sql<{ name: string; live: boolean }[]>`
      select b.manifest->>'name' as name, p.live_build_id = b.id as live
      from builds b join projects p on p.id = b.project_id where p.slug = ${slug} order by b.created_at desc limit 1`;
    expect(renamedBuild).toEqual({ name: `${edited.name} again`, live: true });
    expect(await builds()).toHaveLength(3);

    // A changed source the Dockerfile copies after its last RUN-like step: the layer is laid
    // without the engine (issue 48, item 1; test/cli/deploy-in-process.test.ts has the rest).
    await appendFile(join(dir, 'server.js'), '\n// changed\n');
    const changed = await pitch(['deploy', '--project', slug], ctx.env, dir);
    expect(changed.code, changed.stderr).toBe(0);
    expect(changed.stderr).not.toMatch(/nothing changed/);
    expect(changed.stderr).toMatch(/^build +image laid without the engine in /m);
    expect(changed.stderr).toMatch(
      /^push +sent [\d.]+ K?B in 1 new layer, \d+ layers? already there \([\d.]+ [KMG]B\); sent beside the rehearsal$/m,
    );

    // A changed step in the Dockerfile's tail is the engine's to build: it pushed only the new
    // layer to the tool (it was told the platform has the others), the image not saved whole.
    // (A changed metadata step alone is laid in-process too: test/cli/deploy-in-process.test.ts.)
    await appendFile(join(dir, 'Dockerfile'), 'COPY pitch.json ./\n');
    const engineBuilt = await pitch(['deploy', '--project', slug], ctx.env, dir);
    expect(engineBuilt.code, engineBuilt.stderr).toBe(0);
    expect(engineBuilt.stderr).toMatch(/^build +with the engine: the steps after its last RUN changed/m);
    expect(engineBuilt.stderr).toMatch(/^created +build /m);
    expect(engineBuilt.stderr).toMatch(
      /^scan +image: read 2 new layers \([\d.]+ K?B\) from the engine, \d+ text files scanned; the other \d+ the platform already has, not read;/m,
    );
    // Only the layers the engine made travel (the new COPY's, and server.js's again: its folder is
    // stamped with the engine's step time, not the in-process one's); the base's were pushed the first time.
    expect(engineBuilt.stderr).toMatch(/^push +sent [\d.]+ K?B in 2 new layers, \d+ layers? already there \([\d.]+ [KMG]B\)$/m);
    expect(await builds()).toHaveLength(5);
    expect(await uploads()).toHaveLength(5);
  }, 300_000);
});
