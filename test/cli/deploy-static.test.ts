import { appendFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { opsProjectCommands } from '../../services/ops/ops-projects.js';
import { uniqueSlug } from '../support/refusal.js';
import { expectRefusal } from './support/expect-refusal.js';
import { fixture, pitch, platformForPitch } from './support/pitch.js';
import { startChunkingProxy, startOlderPlatform, startPutUrlRewriter, startRecorder } from './support/upload-proxy.js';
import { desktopChrome } from '../support/browser.js';

// `pitch deploy` of static sites, end to end: the bin as a subprocess against a real platform
// (api and workers on a loopback port, real Postgres, Redis and S3 store).

const ctx = platformForPitch();

const unique = (name: string) => `${name} ${crypto.randomUUID().slice(0, 8)}`;

describe('pitch deploy of a static site', () => {
  it('builds, uploads and makes it live, printing a preview address that opens the room', async () => {
    const name = unique('Static pitch demo');
    const dir = await fixture('static-site', name);
    const result = await pitch(['deploy'], ctx.env, dir);
    expect(result.code, result.stderr).toBe(0);

    // The project was made from the manifest's name, and stdout holds a preview address alone
    // (a private project's /p/<slug> is no page); stderr says how to make a viewer's link.
    const [project] = (await ctx.builder.client.call('listProjects')).filter((p) => p.name === name);
    expect(project.slug).toMatch(/^static-pitch-demo-[0-9a-f]{8}$/);
    expect(result.stdout).toMatch(new RegExp(`^${ctx.platform.baseUrl}/preview/pp_pre_\\S+\n$`));
    expect(result.stderr).toContain(`pitch links create "Viewer Name" --project ${project.slug}`);
    const preview = await fetch(result.stdout.trim(), { headers: { 'user-agent': desktopChrome } });
    expect(preview.status).toBe(200);
    expect(await preview.text()).toContain(name);

    // The build is live, its files were built by the build script, and the manifest's page was sent.
    const builds = await ctx.builder.client.call('listBuilds', { params: { projectId: project.id } });
    expect(builds).toHaveLength(1);
    expect(builds[0]).toMatchObject({ kind: 'static', live: true });
    expect(project.liveBuildId).toBe(builds[0].id);
    const setup = await ctx.builder.client.call('getRoomSetup', { params: { projectId: project.id } });
    expect(setup.pages.map((page) => page.title)).toEqual(['About this demo']);
    const [row] = await ctx.platform.deps.sql<
      { rehearsal: { steps: { id: string; result: string }[] } }[]
    >`select rehearsal from builds where id = ${builds[0].id}`;
    expect(row.rehearsal.steps).toEqual([
      expect.objectContaining({ id: 'welcome', result: 'nothing-to-run' }),
      expect.objectContaining({ id: 'guide', result: 'nothing-to-run' }),
    ]);

    // Progress went to stderr: each step, and the upload's bytes and speed.
    expect(result.stderr).toMatch(/^scan +project: /m);
    expect(result.stderr).toMatch(/^build +npm run build/m);
    expect(result.stderr).toMatch(/^upload +\[#+\] [\d.]+ [KMG]?B \/ [\d.]+ [KMG]?B +[\d.]+ [KMG]?B\/s$/m);
    // The bytes went straight to the object store, a line per part (issue 32).
    expect(result.stderr).toMatch(/^part 1\/1 sent \(\d+ bytes\)$/m);
    expect(result.stderr).toContain(`project   ${project.slug} created: ${ctx.platform.baseUrl}/projects/${project.id}\n`);

    // A second deploy of the same files goes to the same project and stops at "nothing changed":
    // the build script ran again, but what it wrote is what the live build holds.
    const same = await pitch(['deploy'], ctx.env, dir);
    expect(same.code, same.stderr).toBe(0);
    expect(same.stderr).toMatch(
      /^unchanged .* already shows these files and pitch\.json .*nothing changed, nothing uploaded, no build made/m,
    );
    expect(same.stderr).not.toMatch(/^upload /m);
    expect(await ctx.builder.client.call('listBuilds', { params: { projectId: project.id } })).toHaveLength(1);
    expect(await ctx.platform.deps.sql`select 1 from uploads where project_id = ${project.id}`).toHaveLength(1);

    // --force deploys it anyway; --no-live leaves the room as it was.
    const again = await pitch(['deploy', '--no-live', '--note', 'second try', '--force'], ctx.env, dir);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toBe(`${project.roomUrl}\n`);
    const after = await ctx.builder.client.call('listBuilds', { params: { projectId: project.id } });
    expect(after).toHaveLength(2);
    expect(after[0]).toMatchObject({ live: false, note: 'second try' });
    expect((await ctx.builder.client.call('getProject', { params: { projectId: project.id } })).liveBuildId).toBe(builds[0].id);

    // A changed file is a new build, deployed as ever.
    await appendFile(join(dir, 'src', 'index.html'), '\n<!-- changed -->\n');
    const changed = await pitch(['deploy'], ctx.env, dir);
    expect(changed.code, changed.stderr).toBe(0);
    expect(changed.stderr).not.toMatch(/nothing changed/);
    expect(await ctx.builder.client.call('listBuilds', { params: { projectId: project.id } })).toHaveLength(3);
  });

  it('refuses a --project that is no project address, or a note too long, before any work (a container build reached the engine with such a slug)', async () => {
    for (const slug of ['Bad Slug!', 'ab', 'double--hyphen', '-edge']) {
      const result = await pitch(['deploy', '--project', slug], ctx.env, await fixture('static-site'));
      expectRefusal(
        result,
        /^pitch: option '--project <slug>' argument '.+' is invalid\. a project's address is 3 to 40 lower-case letters/,
      );
      expect(result.stderr, slug).not.toMatch(/^(scan|build|pack|upload) /m);
    }
    // Nor a note longer than the platform keeps: it refused it only after the upload, the project made.
    const slug = uniqueSlug('cli-note');
    const noted = await pitch(['deploy', '--project', slug, '--note', 'n'.repeat(201)], ctx.env, await fixture('static-site'));
    expectRefusal(noted, /^pitch: option '--note <text>' argument 'n+' is invalid\. at most 200 characters, not 201$/);
    const projects = await ctx.builder.client.call('listProjects', {});
    expect(projects.map((p) => p.slug)).not.toContain(slug);
  });

  it('stops on a manifest problem, naming the field', async () => {
    const result = await pitch(['deploy', '--project', uniqueSlug('cli-bad')], ctx.env, await fixture('bad-manifest'));
    expectRefusal(result, /^pitch: pitch\.json: apps\[0\]\.id: must be a lower-case letter/);
  });

  it('stops on a fake AWS key in the project folder, naming file, line and rule but never the key', async () => {
    const result = await pitch(['deploy', '--project', uniqueSlug('cli-aws')], ctx.env, await fixture('aws-key'));
    const [first] = expectRefusal(result, /^pitch: a secret in the project folder: config\.js:\d+ \(AWS\w+, secretlint aws\)/);
    expect(first).toMatch(/config\.js:4 \(AWSAccessKeyID/);
    expect(result.stderr).not.toContain('AKIAFAKE');
    expect(result.stderr).not.toContain('FAKEfake');
  });

  it('stops when the build script fails, with its exit code and last words', async () => {
    const result = await pitch(['deploy', '--project', uniqueSlug('cli-build')], ctx.env, await fixture('build-fails'));
    const lines = expectRefusal(result, /^pitch: the build failed: `npm run build` exited with 2$/);
    expect(lines[1]).toContain("error TS1005: ';' expected.");
  });

  it('stops when the output has no index.html', async () => {
    const result = await pitch(['deploy', '--project', uniqueSlug('cli-index')], ctx.env, await fixture('no-index'));
    expectRefusal(result, /^pitch: missing index\.html in the output folder public$/);
  });

  it('stops on a secret the build wrote into the output', async () => {
    const result = await pitch(['deploy', '--project', uniqueSlug('cli-output')], ctx.env, await fixture('output-secret'));
    expectRefusal(result, /^pitch: a secret in the output dist: dist\/app\.js:3 \(AWSAccessKeyID, secretlint aws\)$/);
    expect(result.stderr).toMatch(/^scan +project: .*no secrets$/m);
  });

  it('reports the upload refused by the platform (411 when a proxy drops Content-Length)', async () => {
    const proxy = await startChunkingProxy(ctx.platform.baseUrl);
    try {
      const result = await pitch(
        ['deploy', '--project', uniqueSlug('cli-upload')],
        { ...ctx.env, api: proxy.url },
        await fixture('static-site'),
      );
      expectRefusal(result, /^pitch: the upload of [\d.]+ k?B: the platform refused with 411 length required$/);
    } finally {
      await proxy.close();
    }
  });

  it('falls back to the api PUT on a platform that offers no direct upload', async () => {
    // A person of their own: the shared builder's plan holds the projects the other tests make.
    const person = await ctx.platform.person({ plan: 'solo' });
    const older = await startOlderPlatform(ctx.platform.baseUrl);
    try {
      const result = await pitch(
        ['deploy', '--project', uniqueSlug('cli-old')],
        { ...ctx.env, token: person.token, api: older.url },
        await fixture('static-site'),
      );
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).not.toMatch(/^part /m);
      expect(result.stderr).toMatch(/^upload +\[#+\]/m);
    } finally {
      await older.close();
    }
  });

  it('sends the token to no upload address off the platform origin: absolute elsewhere, or a path that moves the host', async () => {
    const elsewhere = await startRecorder();
    const host = new URL(elsewhere.url).host;
    for (const rewrite of [(path: string) => `${elsewhere.url}${path}`, (path: string) => `@${host}${path}`]) {
      const proxy = await startPutUrlRewriter(ctx.platform.baseUrl, rewrite);
      try {
        const result = await pitch(
          ['deploy', '--project', uniqueSlug('cli-put')],
          { ...ctx.env, api: proxy.url },
          await fixture('static-site'),
        );
        expectRefusal(
          result,
          new RegExp(
            `^pitch: the platform gave an upload address off its own origin \\(http://${host}, not ${proxy.url}\\); nothing was sent$`,
          ),
        );
      } finally {
        await proxy.close();
      }
    }
    await elsewhere.close();
    expect(elsewhere.seen).toEqual([]);
  });

  it("shows a platform refusal's error and reason (423 while the project is taken down)", async () => {
    const slug = uniqueSlug('cli-down');
    await ctx.builder.client.call('createProject', { body: { slug, name: 'Taken down' } });
    await opsProjectCommands.takedown(ctx.platform.deps.sql, slug);
    const result = await pitch(['deploy', '--project', slug], ctx.env, await fixture('static-site'));
    expectRefusal(result, /^pitch: starting the upload: the platform refused with 423 .+ \(reason: paused\)$/);
  });
});
