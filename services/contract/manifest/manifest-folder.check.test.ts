import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkManifest } from './manifest.check.js';
import { app, containerBase, staticBase, step } from '../../../test/fixtures/manifest/manifest.cases.js';
import { checkManifestFolder, PAGE_MAX_CHARS } from './manifest-folder.check.js';
import type { Manifest } from './manifest.schema.js';
import { checkStaticStepPaths, stepPathCandidates } from './static-paths.check.js';

const made: string[] = [];
// The page-length tests write several megabytes: leave nothing behind in the temp folder.
afterAll(() => Promise.all(made.map((dir) => rm(dir, { recursive: true, force: true }))));

/** A fresh project folder holding the given files; each test makes its own. */
async function project(files: Record<string, string> = {}): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'pitch-manifest-'));
  made.push(dir);
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  return dir;
}

function valid(input: unknown): Manifest {
  const result = checkManifest(input);
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  return result.manifest;
}

const withStory = (manifest: Record<string, unknown>) => ({ ...manifest, story: [step()] });

async function checkContainer(dockerfile: string | null) {
  const dir = await project(dockerfile === null ? {} : { Dockerfile: dockerfile });
  const found = await checkManifestFolder(valid(withStory(containerBase())), dir);
  return { problems: found.problems.map((p) => p.code), notes: found.notes.map((n) => n.code), found };
}

describe('rule 11: the Dockerfile of a container build', () => {
  it('needs a Dockerfile at the project root', async () => {
    const { found } = await checkContainer(null);
    expect(found.problems).toEqual([
      { code: 'dockerfile-missing', path: 'Dockerfile', message: 'a container build needs a Dockerfile at the project root' },
    ]);
  });

  it('passes a multi-stage build with AS names whose last stage is in /app with a CMD', async () => {
    const dockerfile = [
      'FROM node:24-alpine AS deps',
      'WORKDIR /build',
      'COPY package*.json ./',
      'RUN npm ci',
      'FROM node:24-alpine AS final',
      'WORKDIR /app',
      'COPY --from=deps /build/node_modules ./node_modules',
      'COPY . .',
      'CMD ["node", "server.js"]',
    ].join('\n');
    expect(await checkContainer(dockerfile)).toMatchObject({ problems: [], notes: [] });
  });

  it('substitutes ARGs in FROM, defaults of ARGs included', async () => {
    const on24 = 'ARG NODE=24\nARG BASE=node:${NODE}-slim\nFROM ${BASE} AS app\nWORKDIR /app\nCMD node s.js';
    expect(await checkContainer(on24)).toMatchObject({ problems: [], notes: [] });
    const on22 = 'ARG NODE=22\nFROM node:${NODE}\nWORKDIR /app\nCMD node s.js';
    expect(await checkContainer(on22)).toMatchObject({ problems: [], notes: ['runtime-not-node-24'] });
  });

  it('reads instructions continued over lines', async () => {
    const dockerfile = 'FROM \\\n  node:24\nWORKDIR \\\n  /app\nCMD [ "node", \\\n  "server.js" ]\n';
    expect(await checkContainer(dockerfile)).toMatchObject({ problems: [], notes: [] });
  });

  it('ignores comments, including inside a continued instruction', async () => {
    const commented = '# WORKDIR /app\nFROM node:24\n# CMD ["node", "s.js"]\nRUN echo hi\n';
    expect(await checkContainer(commented)).toMatchObject({ problems: ['workdir-not-app', 'cmd-missing'] });
    const inside = 'FROM node:24\nWORKDIR /app\nCMD node \\\n# the entry point\n  server.js\n';
    expect(await checkContainer(inside)).toMatchObject({ problems: [], notes: [] });
  });

  it('reads CMD in exec and shell form, and notes one that fetches packages', async () => {
    expect(await checkContainer('FROM node:24\nWORKDIR /app\nCMD npm start')).toMatchObject({ problems: [], notes: [] });
    expect(await checkContainer('FROM node:24\nWORKDIR /app\nCMD npm install && npm start')).toMatchObject({
      problems: [],
      notes: ['cmd-fetches-packages'],
    });
    const exec = 'FROM node:24\nWORKDIR /app\nCMD ["sh", "-c", "npx --yes serve || curl -s http://x | sh"]';
    expect(await checkContainer(exec)).toMatchObject({ problems: [], notes: ['cmd-fetches-packages'] });
  });

  it('refuses a last stage without WORKDIR', async () => {
    const { found } = await checkContainer('FROM node:24\nCOPY . .\nCMD ["node", "s.js"]');
    expect(found.problems).toEqual([
      {
        code: 'workdir-not-app',
        path: 'Dockerfile',
        message: 'the last stage (line 1) never sets its WORKDIR; it must set WORKDIR /app',
      },
    ]);
  });

  it('refuses WORKDIR /app set in an earlier stage only', async () => {
    const dockerfile =
      'FROM node:24 AS build\nWORKDIR /app\nRUN npm ci\nFROM node:24\nCOPY --from=build /app /app\nCMD ["node", "/app/s.js"]';
    expect(await checkContainer(dockerfile)).toMatchObject({ problems: ['workdir-not-app'] });
  });

  it('lets a stage built FROM an earlier one inherit its WORKDIR and CMD', async () => {
    const dockerfile = 'FROM node:24 AS base\nWORKDIR /app\nCMD ["node", "s.js"]\nFROM base\nCOPY . .\n';
    expect(await checkContainer(dockerfile)).toMatchObject({ problems: [], notes: [] });
  });

  it('refuses a last stage without CMD (a CMD in an earlier, unrelated stage does not count)', async () => {
    const dockerfile = 'FROM node:24 AS tool\nCMD ["node", "t.js"]\nFROM node:24\nWORKDIR /app\nENTRYPOINT ["node", "s.js"]';
    expect(await checkContainer(dockerfile)).toMatchObject({ problems: ['cmd-missing'] });
  });

  it('only notes a Dockerfile without FROM', async () => {
    expect(await checkContainer('# syntax=example/frontend\nWORKDIR /app\nCMD x')).toMatchObject({
      problems: [],
      notes: ['dockerfile-no-from'],
    });
  });

  it('notes a last stage that is not on Node 24', async () => {
    const { found } = await checkContainer('FROM python:3.12\nWORKDIR /app\nCMD python app.py');
    expect(found.notes).toEqual([
      {
        code: 'runtime-not-node-24',
        message:
          'The last stage is built on python:3.12, which does not look like the Node 24 runtime (for example node:24 or node:24-alpine).',
      },
    ]);
  });
});

describe('rule 9: pages', () => {
  const manifestWithPages = (pages: string[]) => valid(withStory({ ...staticBase(), pages }));

  it('passes pages present in the project, a link inside it included', async () => {
    const dir = await project({ 'README.md': '# Demo', 'docs/guide.html': '<p>hi</p>', 'dist/index.html': '' });
    await symlink(join(dir, 'README.md'), join(dir, 'docs', 'readme-link.md'));
    const found = await checkManifestFolder(manifestWithPages(['README.md', 'docs/guide.html', './docs/readme-link.md']), dir);
    expect(found.problems).toEqual([]);
  });

  it('refuses an absent page, a folder, and pages outside the project', async () => {
    const outside = await project({ 'secret.md': 'x' });
    const dir = await project({ 'dist/index.html': '', 'docs/folder.md/a.txt': '' });
    const found = await checkManifestFolder(
      manifestWithPages(['missing.md', 'docs/folder.md', '../x.md', join(outside, 'secret.md')]),
      dir,
    );
    expect(found.problems.map((p) => [p.path, p.code])).toEqual([
      ['pages[0]', 'page-missing'],
      ['pages[1]', 'page-missing'],
      ['pages[2]', 'page-outside'],
      ['pages[3]', 'page-outside'],
    ]);
  });

  it('refuses a page that escapes the project through a symlink', async () => {
    const outside = await project({ 'secret.md': 'x' });
    const dir = await project({ 'dist/index.html': '' });
    await symlink(join(outside, 'secret.md'), join(dir, 'notes.md'));
    await symlink(outside, join(dir, 'linked'));
    const found = await checkManifestFolder(manifestWithPages(['notes.md', 'linked/secret.md']), dir);
    expect(found.problems).toEqual([
      { code: 'page-outside', path: 'pages[0]', message: 'notes.md leads outside the project folder through a link' },
      { code: 'page-outside', path: 'pages[1]', message: 'linked/secret.md leads outside the project folder through a link' },
    ]);
  });

  it('takes a page of exactly 2,000,000 characters and refuses one more', async () => {
    const dir = await project({
      'dist/index.html': '',
      'at-limit.md': 'a'.repeat(PAGE_MAX_CHARS),
      'over.md': 'a'.repeat(PAGE_MAX_CHARS + 1),
      // Two bytes a character: over the limit in bytes, at the limit in characters.
      'accents.md': 'é'.repeat(PAGE_MAX_CHARS),
      'accents-over.md': 'é'.repeat(PAGE_MAX_CHARS + 1),
    });
    const found = await checkManifestFolder(manifestWithPages(['at-limit.md', 'over.md', 'accents.md', 'accents-over.md']), dir);
    expect(found.problems).toEqual([
      { code: 'page-too-long', path: 'pages[1]', message: 'over.md is longer than 2,000,000 characters' },
      { code: 'page-too-long', path: 'pages[3]', message: 'accents-over.md is longer than 2,000,000 characters' },
    ]);
  });
});

describe('rules 8 and 10: the static output', () => {
  const staticWith = (output: string, paths: (string | undefined)[] = []) =>
    valid({
      ...staticBase(),
      output,
      ...(paths.length > 0 ? { story: paths.map((path, i) => step(`s${i}`, path ? { path } : {})) } : {}),
    });

  it('notes an output not built yet, and waits for the build to check step paths', async () => {
    const dir = await project();
    const found = await checkManifestFolder(staticWith('dist', ['/missing.html']), dir);
    expect(found.problems).toEqual([]);
    expect(found.notes).toEqual([{ code: 'output-index-missing', message: 'dist/index.html is not there yet; the build must write it.' }]);
  });

  it('finds each step path as a file or as a folder with index.html', async () => {
    const dir = await project({
      'dist/index.html': '',
      'dist/about.html': '',
      'dist/docs/index.html': '',
      'dist/My Page.html': '',
      'dist/empty/.keep': '',
    });
    const found = await checkManifestFolder(
      staticWith('dist', [
        undefined,
        '/',
        '/about.html',
        '/docs',
        '/docs/',
        '/about.html?tab=2#top',
        '/My%20Page.html',
        '/empty/',
        '/nope.html',
        '/../dist/index.html',
      ]),
      dir,
    );
    expect(found.problems.map((p) => [p.path, p.code])).toEqual([
      ['story[7].path', 'step-path-missing'],
      ['story[8].path', 'step-path-missing'],
      ['story[9].path', 'step-path-missing'],
    ]);
    expect(found.notes).toEqual([]);
  });

  it('notes a built output without index.html', async () => {
    const dir = await project({ 'dist/app.html': '' });
    const found = await checkManifestFolder(staticWith('dist', ['/app.html']), dir);
    expect(found.problems).toEqual([]);
    expect(found.notes.map((n) => n.code)).toEqual(['output-index-missing']);
  });

  it('refuses an output outside the project, directly or through a link', async () => {
    const outside = await project({ 'index.html': '' });
    const dir = await project();
    await symlink(outside, join(dir, 'dist'));
    for (const output of ['../elsewhere', outside, 'dist']) {
      const found = await checkManifestFolder(staticWith(output), dir);
      expect(
        found.problems.map((p) => [p.path, p.code]),
        output,
      ).toEqual([['output', 'output-outside']]);
    }
  });

  it('takes the project folder itself as output, and refuses a file', async () => {
    const dir = await project({ 'index.html': '', 'build.txt': '' });
    expect((await checkManifestFolder(staticWith('.'), dir)).problems).toEqual([]);
    const found = await checkManifestFolder(staticWith('build.txt'), dir);
    expect(found.problems.map((p) => p.code)).toEqual(['output-not-folder']);
  });

  it('notes a manifest without a story', async () => {
    const dir = await project({ 'dist/index.html': '' });
    const found = await checkManifestFolder(valid(staticBase()), dir);
    expect(found.notes.map((n) => n.code)).toEqual(['no-story']);
  });
});

describe('checkStaticStepPaths on a file list (the platform, without a folder)', () => {
  const manifest = valid({
    ...staticBase(),
    apps: [app()],
    story: ['/', '/docs/', '/guide', '/gone.html'].map((path, i) => step(`s${i}`, { path })),
  });

  it('takes a set of paths relative to the output root', () => {
    const files = new Set(['index.html', 'docs/index.html', 'guide']);
    expect(checkStaticStepPaths(manifest, files).map((p) => p.path)).toEqual(['story[3].path']);
  });

  it('takes a predicate', () => {
    expect(checkStaticStepPaths(manifest, () => true)).toEqual([]);
    expect(checkStaticStepPaths(manifest, (path) => path === 'index.html' || path.startsWith('docs/')).map((p) => p.path)).toEqual([
      'story[2].path',
      'story[3].path',
    ]);
  });

  it('has nothing to say about a container build', () => {
    expect(checkStaticStepPaths(valid(withStory(containerBase())), new Set())).toEqual([]);
  });

  it.each([
    ['/', ['index.html']],
    ['/a.html', ['a.html', 'a.html/index.html']],
    ['/docs/', ['docs', 'docs/index.html']],
    ['/a/./b//c?x=1#y', ['a/b/c', 'a/b/c/index.html']],
    ['/%E2%9C%93.html', ['✓.html', '✓.html/index.html']],
    ['/%zz', ['%zz', '%zz/index.html']],
    ['/a/../b', ['b', 'b/index.html']],
    ['/../etc/passwd', []],
  ])('step path %s names %j', (path, candidates) => {
    expect(stepPathCandidates(path)).toEqual(candidates);
  });
});

describe('a story step that points at an element', () => {
  it('is noted when the page the step shows has no such element, and not otherwise', async () => {
    const dir = await project({
      'dist/index.html': '<!doctype html><h1 id="title">Shop</h1>',
      'dist/cart/index.html': '<!doctype html><button class="pay">Pay</button>',
    });
    const manifest = valid({
      ...staticBase(),
      story: [
        step('a', { point: '#title' }),
        step('b', { point: '#missing' }),
        step('c', { path: '/cart/', point: 'button.pay' }),
        step('d', { path: '/cart/', point: '#title' }),
      ],
    });
    const found = await checkManifestFolder(manifest, dir);
    expect(found.problems).toEqual([]);
    expect(found.notes.filter((n) => n.code === 'point-not-found').map((n) => n.message)).toEqual([
      'story[1].point "#missing" finds nothing in dist/index.html: the step will show no ring, unless the page\'s script adds the element.',
      'story[3].point "#title" finds nothing in dist/cart/index.html: the step will show no ring, unless the page\'s script adds the element.',
    ]);
  });
});
