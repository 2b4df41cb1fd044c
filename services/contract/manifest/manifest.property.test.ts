import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkManifest } from './manifest.check.js';
import { arbContainerManifest, arbManifest, arbStaticManifest } from '../../../test/fixtures/manifest/manifest.arbitrary.js';

type Json = Record<string, any>;

/** A change that breaks one rule; returns the path of the problem it must cause. */
interface Mutation {
  name: string;
  kind?: 'container' | 'static';
  apply(manifest: Json, pick: number): string;
}

function freshId(taken: Json[], stem: string): string {
  const ids = new Set(taken.map((item) => item.id));
  let n = 0;
  while (ids.has(`${stem}-${n}`)) n += 1;
  return `${stem}-${n}`;
}

/** The manifest's story, made with one step when it has none. */
function ensureStory(m: Json): Json[] {
  m.story ??= [{ id: 'intro', title: 'Intro', say: 'Hello', app: m.apps[0].id }];
  return m.story;
}

const MUTATIONS: Mutation[] = [
  { name: 'name too long', apply: (m) => ((m.name = 'n'.repeat(81)), 'name') },
  {
    name: 'app id not lower-case',
    apply: (m, pick) => {
      const i = pick % m.apps.length;
      m.apps[i].id = `X${m.apps[i].id}`;
      return `apps[${i}].id`;
    },
  },
  {
    name: 'app path starting //',
    apply: (m, pick) => {
      const i = pick % m.apps.length;
      m.apps[i].path = '//elsewhere.test/';
      return `apps[${i}].path`;
    },
  },
  {
    name: 'app device unknown',
    apply: (m, pick) => {
      const i = pick % m.apps.length;
      m.apps[i].device = 'watch';
      return `apps[${i}].device`;
    },
  },
  {
    name: 'app id declared twice',
    apply: (m, pick) => {
      if (m.apps.length === 1) {
        m.apps.push({ ...m.apps[0], default: false });
        return 'apps[1].id';
      }
      const j = 1 + (pick % (m.apps.length - 1));
      m.apps[j].id = m.apps[0].id;
      return `apps[${j}].id`;
    },
  },
  {
    name: 'two default apps',
    apply: (m) => {
      for (const app of m.apps) delete app.default;
      m.apps[0].default = true;
      if (m.apps.length === 1) m.apps.push({ ...m.apps[0], id: freshId(m.apps, 'other') });
      m.apps[m.apps.length - 1].default = true;
      return `apps[${m.apps.length - 1}].default`;
    },
  },
  {
    name: '13 apps',
    apply: (m) => {
      while (m.apps.length < 13) m.apps.push({ ...m.apps[0], id: freshId(m.apps, 'more'), default: false });
      return 'apps';
    },
  },
  { name: 'unknown field', apply: (m) => ((m.theme = 'dark'), 'theme') },
  {
    name: 'step naming an undeclared app',
    apply: (m, pick) => {
      const story = ensureStory(m);
      const i = pick % story.length;
      story[i].app = freshId(m.apps, 'missing');
      return `story[${i}].app`;
    },
  },
  {
    name: 'step id declared twice',
    apply: (m, pick) => {
      const story = ensureStory(m);
      if (story.length === 1) {
        story.push({ ...story[0] });
        return 'story[1].id';
      }
      const j = 1 + (pick % (story.length - 1));
      story[j].id = story[0].id;
      return `story[${j}].id`;
    },
  },
  {
    name: 'step title too long',
    apply: (m, pick) => {
      const story = ensureStory(m);
      const i = pick % story.length;
      story[i].title = 't'.repeat(61);
      return `story[${i}].title`;
    },
  },
  { name: 'page not .md or .html', apply: (m) => ((m.pages = ['notes.txt']), 'pages[0]') },
  { name: 'controls on a static build', kind: 'static', apply: (m) => ((m.controls = {}), 'controls') },
  {
    name: 'step run on a static build',
    kind: 'static',
    apply: (m, pick) => {
      const story = ensureStory(m);
      const i = pick % story.length;
      story[i].run = ['POST /seed'];
      return `story[${i}].run`;
    },
  },
  { name: 'empty output', kind: 'static', apply: (m) => ((m.output = ''), 'output') },
  { name: 'container without run', kind: 'container', apply: (m) => (delete m.run, 'run') },
  { name: 'env key with a hyphen', kind: 'container', apply: (m) => ((m.run.env = { 'MOCK-API': '1' }), 'run.env["MOCK-API"]') },
  { name: 'output on a container build', kind: 'container', apply: (m) => ((m.output = 'dist'), 'output') },
  {
    name: 'scenario id declared twice',
    kind: 'container',
    apply: (m) => {
      m.controls = {
        scenarios: [
          { id: 'seed', label: 'Seed', call: 'POST /seed' },
          { id: 'seed', label: 'Again', call: 'POST /seed' },
        ],
      };
      return 'controls.scenarios[1].id';
    },
  },
];

describe('generated manifests', () => {
  it('pass when valid, of both kinds', () => {
    fc.assert(
      fc.property(arbManifest, (manifest) => {
        const result = checkManifest(JSON.parse(JSON.stringify(manifest)));
        expect(result.ok ? [] : result.problems).toEqual([]);
      }),
      { numRuns: 500 },
    );
  });

  it('keep what they say: the checked manifest equals the input, health aside', () => {
    fc.assert(
      fc.property(arbManifest, (manifest) => {
        const result = checkManifest(manifest);
        expect(result.ok).toBe(true);
        if (result.ok) expect({ ...result.manifest, health: undefined }).toEqual({ ...manifest, health: undefined });
      }),
      { numRuns: 200 },
    );
  });

  for (const kind of ['container', 'static'] as const) {
    const arb = kind === 'container' ? arbContainerManifest : arbStaticManifest;
    const mutations = MUTATIONS.filter((mutation) => !mutation.kind || mutation.kind === kind);
    it(`fail at the broken field after one mutation (${kind})`, () => {
      fc.assert(
        fc.property(arb, fc.constantFrom(...mutations), fc.nat(), (manifest, mutation, pick) => {
          const mutated = structuredClone(manifest) as Json;
          const path = mutation.apply(mutated, pick);
          const result = checkManifest(mutated);
          expect(result.ok, mutation.name).toBe(false);
          if (!result.ok)
            expect(
              result.problems.map((p) => p.path),
              mutation.name,
            ).toContain(path);
        }),
        { numRuns: 1000 },
      );
    });
  }
});
