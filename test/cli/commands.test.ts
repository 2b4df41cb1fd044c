import { mkdir, mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Manifest } from '@demo-rooms/contract/manifest';
import { startPlatform, type Platform } from '../support/platform.js';
import { uniqueSlug } from '../support/refusal.js';
import { expectRefusal } from './support/expect-refusal.js';
import { configHome, fixture, pitch, type PitchEnv } from './support/pitch.js';

// The commands around a deploy: init and validate, links, projects, builds and rollback, with
// --json on every listing. One static project is deployed twice for them to work on.

let platform: Platform;
let builder: Awaited<ReturnType<Platform['person']>>;
let env: PitchEnv;
let site: string;
let slug: string;

beforeAll(async () => {
  platform = await startPlatform({ workers: true });
  builder = await platform.person({ plan: 'solo' });
  env = { api: platform.baseUrl, token: builder.token, configHome: await configHome() };
  site = await fixture('static-site');
  slug = uniqueSlug('cli-cmds');
  // Two builds: the first live, then the second live (the same files: --force, or the second
  // deploy would say "nothing changed").
  for (const note of ['first', 'second']) {
    const result = await pitch(['deploy', '--project', slug, '--note', note, '--force'], env, site);
    expect(result.code, result.stderr).toBe(0);
  }
});
afterAll(async () => {
  await platform.close();
});

describe('pitch init and validate', () => {
  it('writes a starter pitch.json pointing at the published schema, which validates', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'pitch-init-'));
    await writeFile(join(dir, 'index.html'), '<!doctype html><title>Hi</title>');
    const init = await pitch(['init', '--kind', 'static', '--name', 'Hello demo'], env, dir);
    expect(init.code, init.stderr).toBe(0);
    const written = JSON.parse(await readFile(join(dir, 'pitch.json'), 'utf8'));
    expect(written).toMatchObject({
      $schema: `${platform.baseUrl}/api/manifest.schema.json`,
      kind: 'static',
      name: 'Hello demo',
      output: '.',
    });
    expect(Manifest.safeParse(written).success).toBe(true);
    // The schema it names is the one the platform publishes.
    expect((await fetch(written.$schema)).status).toBe(200);

    const valid = await pitch(['validate'], env, dir);
    expect(valid.code, valid.stderr).toBe(0);
    expect(valid.stderr).toContain('pitch.json is valid');
    expectRefusal(await pitch(['init'], env, dir), /^pitch: .*pitch\.json already exists$/);
  });

  it("keeps its compiled code in the user's cache folder, and starts without it where that folder cannot be made", async () => {
    const cacheHome = await mkdtemp(join(tmpdir(), 'pitch-cache-'));
    const cached = await pitch(['validate', site], { ...env, extra: { XDG_CACHE_HOME: cacheHome } });
    expect(cached.code, cached.stderr).toBe(0);
    const [version] = await readdir(join(cacheHome, 'pitch', 'compile-cache'));
    expect(version).toMatch(/^v\d+/);
    expect((await readdir(join(cacheHome, 'pitch', 'compile-cache', version))).length).toBeGreaterThan(10);
    // A home under /proc refuses every new name with ENOENT, where a recursive mkdir loops for ever.
    const refused = await pitch(['validate', site], { ...env, extra: { XDG_CACHE_HOME: `/proc/pitch-cache-${process.pid}` } });
    expect(refused.code, refused.stderr).toBe(0);
    expect(refused.stderr).toContain('pitch.json is valid');
  }, 60_000);

  it("takes a static site's output from the usual folder that has an index.html, else dist", async () => {
    for (const [folder, expected] of [
      ['site', 'site'],
      ['build', 'build'],
      [null, 'dist'],
    ] as const) {
      const dir = await mkdtemp(join(tmpdir(), 'pitch-init-'));
      if (folder) {
        await mkdir(join(dir, folder));
        await writeFile(join(dir, folder, 'index.html'), '<!doctype html><title>Hi</title>');
      }
      const made = await pitch(['init', '--kind', 'static', '--name', 'Site'], env, dir);
      expect(made.code, made.stderr).toBe(0);
      expect(JSON.parse(await readFile(join(dir, 'pitch.json'), 'utf8')).output).toBe(expected);
      // A folder with no site yet is told where to build it, before its first deploy refuses.
      if (folder) expect(made.stderr).not.toContain('No index.html yet');
      else expect(made.stderr).toMatch(/No index\.html yet in \., dist, build, .*pitch\.json names dist\. Build the site into dist/);
    }
  });

  it('takes the kind and name it is not given from the folder', async () => {
    const dir = join(await mkdtemp(join(tmpdir(), 'pitch-init-')), 'acme-shop');
    await mkdir(dir);
    await writeFile(join(dir, 'Dockerfile'), 'FROM localhost/demo-node:24\nWORKDIR /app\nCMD ["node", "server.js"]\n');
    expect((await pitch(['init'], env, dir)).code).toBe(0);
    expect(JSON.parse(await readFile(join(dir, 'pitch.json'), 'utf8'))).toMatchObject({
      kind: 'container',
      name: 'Acme shop',
      health: '/healthz',
    });
  });

  it('makes the project folder it is given when there is none yet, and refuses a file of that name', async () => {
    const parent = await mkdtemp(join(tmpdir(), 'pitch-init-'));
    const made = await pitch(['init', 'new-demo/site', '--kind', 'static', '--name', 'New demo'], env, parent);
    expect(made.code, made.stderr).toBe(0);
    expect(made.stderr).toContain(`Made the folder ${join(parent, 'new-demo', 'site')}.`);
    expect(JSON.parse(await readFile(join(parent, 'new-demo', 'site', 'pitch.json'), 'utf8'))).toMatchObject({
      kind: 'static',
      name: 'New demo',
    });
    await writeFile(join(parent, 'a-file'), 'not a folder\n');
    expectRefusal(await pitch(['init', 'a-file', '--kind', 'static'], env, parent), /^pitch: .*a-file is a file, not a folder$/);
    expect(await readFile(join(parent, 'a-file'), 'utf8')).toBe('not a folder\n');
  });

  it('writes the health path it is given for a container, and refuses one that is not a path', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'pitch-init-'));
    const made = await pitch(['init', '--kind', 'container', '--name', 'Api demo', '--health', '/api/status'], env, dir);
    expect(made.code, made.stderr).toBe(0);
    expect(JSON.parse(await readFile(join(dir, 'pitch.json'), 'utf8'))).toMatchObject({ kind: 'container', health: '/api/status' });
    expectRefusal(
      await pitch(['init', '--force', '--kind', 'container', '--name', 'Api demo', '--health', 'api/status'], env, dir),
      /--health api\/status is not a path on the server/,
    );
    expect(JSON.parse(await readFile(join(dir, 'pitch.json'), 'utf8')).health).toBe('/api/status');
  });

  it('writes a layered Dockerfile and a .dockerignore for a Node app, and notes a COPY . . that carries node_modules', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'pitch-init-'));
    await writeFile(join(dir, 'package.json'), JSON.stringify({ name: 'shop', main: 'server.js' }));
    await writeFile(join(dir, 'server.js'), 'require("dep");\n');
    await mkdir(join(dir, 'public'));
    await writeFile(join(dir, 'public', 'index.html'), '<h1>Shop</h1>\n');
    await mkdir(join(dir, 'node_modules', 'dep'), { recursive: true });
    await writeFile(join(dir, 'node_modules', 'dep', 'index.js'), `module.exports = ${JSON.stringify('x'.repeat(30_000))};\n`);
    const made = await pitch(['init', '--kind', 'container', '--name', 'Shop', '--health', '/healthz'], env, dir);
    expect(made.code, made.stderr).toBe(0);
    const dockerfile = await readFile(join(dir, 'Dockerfile'), 'utf8');
    const steps = dockerfile.split('\n').filter((line) => /^[A-Z]/.test(line));
    expect(steps).toEqual([
      'FROM localhost/demo-node:24',
      'WORKDIR /app',
      'COPY package*.json ./',
      'COPY node_modules ./node_modules',
      'COPY server.js ./',
      'COPY public ./public',
      'CMD ["node", "server.js"]',
    ]);
    expect((await readFile(join(dir, '.dockerignore'), 'utf8')).split('\n')).toEqual(expect.arrayContaining(['.git', '.env', '*.log']));
    const valid = await pitch(['validate'], env, dir);
    expect(valid.code, valid.stderr).toBe(0);
    expect(valid.stderr).not.toMatch(/node_modules/);

    // The one-layer Dockerfile of old: the note says what each change costs, and how to fix it.
    await writeFile(join(dir, 'Dockerfile'), 'FROM localhost/demo-node:24\nWORKDIR /app\nCOPY . .\nCMD ["node", "server.js"]\n');
    const noted = await pitch(['validate', '--json'], env, dir);
    expect(JSON.parse(noted.stdout).notes).toContainEqual({
      code: 'copy-carries-node-modules',
      message: expect.stringMatching(
        /^the Dockerfile's line 3 copies the whole folder, node_modules \(29 KB\) with the code: each change resends 29 KB\. Copy package\*\.json and node_modules in layers of their own/,
      ),
    });
  });

  it('lists every problem with its field, and the notes, and exits 1', async () => {
    const dir = await fixture('static-site');
    const file = join(dir, 'pitch.json');
    const manifest = JSON.parse(await readFile(file, 'utf8'));
    await writeFile(
      file,
      JSON.stringify({ ...manifest, apps: [{ ...manifest.apps[0], device: 'watch' }], pages: ['missing.md'], controls: {} }),
    );
    const result = await pitch(['validate'], env, dir);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('pitch.json: apps[0].device: must be one of');
    expect(result.stderr).toContain('pitch.json: controls: controls are only for a container build');
    expect(result.stderr.trim().split('\n').at(-1)).toBe('pitch: 2 problems: fix them, then run pitch validate again');

    await writeFile(file, JSON.stringify({ ...manifest, pages: ['missing.md'] }));
    const json = await pitch(['validate', '--json'], env, dir);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toEqual({
      ok: false,
      problems: [{ code: 'page-missing', path: 'pages[0]', message: 'missing.md does not exist' }],
      notes: [expect.objectContaining({ code: 'output-index-missing' })],
    });
  });
});

describe('pitch links, projects, builds and rollback', () => {
  it('lists projects and builds, as tables and as JSON', async () => {
    const projects = JSON.parse((await pitch(['projects', 'ls', '--json'], env)).stdout);
    const project = projects.find((p: { slug: string }) => p.slug === slug);
    expect(project).toMatchObject({ slug, name: 'Static pitch demo', roomUrl: `${platform.baseUrl}/p/${slug}` });
    expect((await pitch(['projects', 'ls'], env)).stdout).toMatch(new RegExp(`^${slug} +Static pitch demo +yes `, 'm'));

    // In the folder it deployed from, builds need no --project: the folder remembers it.
    const builds = JSON.parse((await pitch(['builds', 'ls', '--json'], env, site)).stdout);
    expect(builds.map((b: { note: string; live: boolean }) => [b.note, b.live])).toEqual([
      ['second', true],
      ['first', false],
    ]);
    const table = (await pitch(['builds', 'ls', '--project', slug], env)).stdout;
    expect(table.split('\n')[0]).toMatch(/^ID +KIND +SIZE +LIVE +CREATED +NOTE$/);
    expect(table).toContain(`${builds[0].id}  static`);
    // Issue 29: the size as the web app shows it, in units of 1,024 spelled KB/MB (once decimal kB here).
    const size = builds[0].sizeBytes as number;
    const shown =
      size >= 1024 * 1024 ? `${(size / 1024 / 1024).toFixed(1)} MB` : size >= 1024 ? `${Math.round(size / 1024)} KB` : `${size} B`;
    expect(table).toMatch(new RegExp(`^${builds[0].id} +static +${shown.replace('.', '\\.')} `, 'm'));
  });

  it('rolls back to an earlier build by the start of its id', async () => {
    const [second, first] = JSON.parse((await pitch(['builds', 'ls', '--json', '--project', slug], env)).stdout);
    const result = await pitch(['rollback', first.id.slice(0, 8), '--project', slug], env);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(`${platform.baseUrl}/p/${slug}\n`);
    const project = (await builder.client.call('listProjects')).find((p) => p.slug === slug)!;
    expect(project.liveBuildId).toBe(first.id);
    const history = await builder.client.call('buildHistory', { params: { projectId: project.id } });
    expect(history.find((b) => b.id === first.id)!.releases[0]).toMatchObject({ rollback: true });

    expect(result.stderr).toContain(`Rolled ${slug} back to build ${first.id}.`);

    // Making the newer build live again is no rollback (issue 29): said and recorded as a release.
    const forward = await pitch(['rollback', second.id, '--project', slug], env);
    expect(forward.code, forward.stderr).toBe(0);
    expect(forward.stderr).toContain(`Build ${second.id} of ${slug} is live.`);
    const after = await builder.client.call('buildHistory', { params: { projectId: project.id } });
    expect(after.find((b) => b.id === second.id)!.releases[0]).toMatchObject({ rollback: false });
    expect(after.find((b) => b.id === first.id)!.releases[0]).toMatchObject({ rollback: true });
    expectRefusal(await pitch(['rollback', 'ffffffff', '--project', slug], env), new RegExp(`^pitch: no build ffffffff in ${slug}$`));
  });

  it('makes, lists, reveals and revokes links', async () => {
    const created = await pitch(['links', 'create', 'Ada Lovelace', '--email', 'ada@example.com', '--days', '7', '--project', slug], env);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toMatch(new RegExp(`^${platform.baseUrl}/r/\\S+\\n$`));
    const url = created.stdout.trim();

    const links = JSON.parse((await pitch(['links', 'ls', '--json', '--project', slug], env)).stdout);
    expect(links).toEqual([expect.objectContaining({ viewerName: 'Ada Lovelace', viewerEmail: 'ada@example.com', revokedAt: null })]);
    expect(JSON.stringify(links)).not.toContain(url);
    expect((await pitch(['links', 'ls'], env, site)).stdout).toMatch(/^\S+ +Ada Lovelace +ada@example\.com +sent +open /m);

    expect((await pitch(['links', 'reveal', links[0].id], env)).stdout).toBe(`${url}\n`);
    const revoked = await pitch(['links', 'revoke', links[0].id], env);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(JSON.parse((await pitch(['links', 'ls', '--json', '--project', slug], env)).stdout)[0].revokedAt).not.toBeNull();
    expectRefusal(
      await pitch(['links', 'reveal', links[0].id], env),
      /^pitch: revealing link \S+: the platform refused with 422 refused: revoked \(reason: revoked\)$/,
    );
  });

  it("makes a link that expires after the platform's 14 days unless told, and one that never expires only with --never-expires", async () => {
    const expiryOf = async (viewerName: string) =>
      (
        JSON.parse((await pitch(['links', 'ls', '--json', '--project', slug], env)).stdout) as {
          viewerName: string;
          expiresAt: string | null;
        }[]
      ).find((l) => l.viewerName === viewerName)!.expiresAt;
    const plain = await pitch(['links', 'create', 'Default Days', '--project', slug], env);
    expect(plain.code, plain.stderr).toBe(0);
    const days = (Date.parse((await expiryOf('Default Days'))!) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(13.9);
    expect(days).toBeLessThanOrEqual(14);

    const never = await pitch(['links', 'create', 'For Ever', '--never-expires', '--project', slug], env);
    expect(never.code, never.stderr).toBe(0);
    expect(never.stderr).toContain('never expires');
    expect(await expiryOf('For Ever')).toBeNull();
    expectRefusal(
      await pitch(['links', 'create', 'Both', '--days', '3', '--never-expires', '--project', slug], env),
      /^pitch: --days and --never-expires say different things$/,
    );
  });

  it("names the viewer's company with --company, changes and clears it with links update, refuses one too long", async () => {
    const made = await pitch(['links', 'create', 'Zoë', '--company', 'Société Générale', '--project', slug], env);
    expect(made.code, made.stderr).toBe(0);
    expect(made.stderr).toContain('for Zoë (Société Générale)');
    const companyOf = async () =>
      (
        JSON.parse((await pitch(['links', 'ls', '--json', '--project', slug], env)).stdout) as {
          id: string;
          viewerName: string;
          viewerCompany: string | null;
        }[]
      ).find((l) => l.viewerName === 'Zoë')!;
    const link = await companyOf();
    expect(link.viewerCompany).toBe('Société Générale');
    const changed = await pitch(['links', 'update', link.id, '--company', 'Acme'], env);
    expect(changed.code, changed.stderr).toBe(0);
    expect((await companyOf()).viewerCompany).toBe('Acme');
    expect((await pitch(['links', 'update', link.id, '--no-company'], env)).code).toBe(0);
    expect((await companyOf()).viewerCompany).toBeNull();
    expectRefusal(await pitch(['links', 'update', link.id], env), /^pitch: nothing to change$/);
    expectRefusal(
      await pitch(['links', 'create', 'Long', '--company', 'x'.repeat(81), '--project', slug], env),
      /^pitch: making the link: the platform refused with 400/,
    );
  });

  it('refuses a plan limit with its limit and plan, and an unknown project by its slug', async () => {
    const free = await platform.person();
    const lines = expectRefusal(
      await pitch(['links', 'create', 'Bob', '--project', slug], { ...env, token: free.token }),
      new RegExp(`^pitch: no project ${slug} in your workspace$`),
    );
    expect(lines[1]).toContain('pitch projects ls');
    await free.client.call('createProject', { body: { slug: `${slug}-free`, name: 'Free' } });
    const limit = expectRefusal(
      await pitch(['links', 'create', 'Bob', '--project', `${slug}-free`], { ...env, token: free.token }),
      /^pitch: making the link: the platform refused with 402 .+ \(reason: limit\)$/,
    );
    expect(limit[1]).toMatch(
      /^ {2}limit links of the free plan; the \w+ plan allows more \(your plan and its limits: Usage in the web app\)$/,
    );
  });
});
