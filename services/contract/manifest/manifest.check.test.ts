import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { checkManifest, plainMessage } from './manifest.check.js';
import { RULE_CASES, app, containerBase, staticBase, step } from '../../../test/fixtures/manifest/manifest.cases.js';
import { formatPath } from './manifest.problem.js';

function problemPaths(input: unknown): string[] {
  const result = checkManifest(input);
  return result.ok ? [] : result.problems.map((problem) => problem.path);
}

describe('checkManifest: every rule and limit of spec 2.1', () => {
  it.each(RULE_CASES.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    expect(problemPaths(c.manifest).sort()).toEqual([...c.paths].sort());
  });
});

describe('checkManifest', () => {
  it('fills health with /healthz on a container build', () => {
    const result = checkManifest(containerBase());
    expect(result.ok && result.manifest.kind === 'container' && result.manifest.health).toBe('/healthz');
  });

  it('leaves a static build without health', () => {
    const result = checkManifest(staticBase());
    expect(result.ok && 'health' in result.manifest).toBe(false);
  });

  it('takes a container build without run when the caller fills it in later', () => {
    const manifest = containerBase();
    delete manifest.run;
    expect(checkManifest(manifest, { requireRun: false }).ok).toBe(true);
    expect(checkManifest(manifest, { requireRun: true }).ok).toBe(false);
  });

  it('names the field at fault in words a builder can act on', () => {
    const result = checkManifest({
      ...staticBase(),
      name: '',
      controls: { reset: 'POST /' },
      apps: [app('web'), app('web')],
      story: [step('a', { run: ['GET /'] }), step('b', { app: 'nope' })],
      colour: 'red',
    });
    expect(result.ok).toBe(false);
    const messages = Object.fromEntries(result.ok ? [] : result.problems.map((p) => [p.path, p.message]));
    expect(messages).toEqual({
      name: 'must not be empty',
      controls: 'controls are only for a container build',
      'story[0].run': "a step's run is only for a container build",
      colour: 'unknown field',
      'apps[1].id': 'app id "web" is already declared at apps[0]',
      'story[1].app': 'app "nope" is not declared in apps',
    });
  });

  it('reports field and cross-field problems in one pass', () => {
    const paths = problemPaths({ ...containerBase(), name: chars81(), apps: [app('web'), app('web')] });
    expect(paths.sort()).toEqual(['apps[1].id', 'name']);
  });

  it('says what a missing field, a wrong type and a wrong choice are', () => {
    const result = checkManifest({ kind: 'container', apps: [{ ...app(), device: 'tv', name: 3 }], run: { start: ['x'] } });
    expect(result.ok ? [] : result.problems).toEqual([
      { path: 'name', message: 'is required' },
      { path: 'apps[0].name', message: 'must be a string' },
      { path: 'apps[0].device', message: 'must be one of "phone", "tablet", "laptop", "screen", "none"' },
    ]);
  });

  it('names a value in a body that is not JSON', () => {
    const manifest = { ...containerBase(), story: [step('a', { run: [{ call: 'POST /', body: { when: new Date(), f: () => 1 } }] })] };
    const paths = problemPaths(manifest);
    expect(paths).toEqual(['story[0].run[0].body.when', 'story[0].run[0].body.f']);
  });
});

function chars81(): string {
  return 'x'.repeat(81);
}

describe('formatPath', () => {
  it.each([
    [[], ''],
    [['name'], 'name'],
    [['apps', 2, 'id'], 'apps[2].id'],
    [['controls', 'scenarios', 0, 'id'], 'controls.scenarios[0].id'],
    [['run', 'env', 'MY-KEY'], 'run.env["MY-KEY"]'],
    [['run', 'env', '1A'], 'run.env["1A"]'],
    [['$schema'], '$schema'],
  ] as const)('%j renders as %s', (path, text) => {
    expect(formatPath(path)).toBe(text);
  });
});

describe('plainMessage', () => {
  const body = z.object({
    sizeBytes: z.number().int().positive(),
    kind: z.enum(['static', 'container']),
    days: z.number().int().min(1).max(365),
    name: z.string().min(1).max(80),
  });
  const messages = (input: unknown) =>
    Object.fromEntries(body.safeParse(input, { error: plainMessage }).error?.issues.map((i) => [i.path.join('.'), i.message]) ?? []);

  it('speaks of numbers as numbers and of text as characters', () => {
    expect(messages({ sizeBytes: 0, kind: 'static', days: 0, name: '' })).toEqual({
      sizeBytes: 'must be more than 0',
      days: 'must be at least 1',
      name: 'must not be empty',
    });
    expect(messages({ sizeBytes: 1e300, kind: 'static', days: 366, name: 'x'.repeat(81) })).toEqual({
      sizeBytes: 'must be at most 9007199254740991',
      days: 'must be at most 365',
      name: 'must be at most 80 characters',
    });
    expect(messages({ sizeBytes: 1.5, kind: 'static', days: 2, name: 'x' })).toEqual({ sizeBytes: 'must be a whole number' });
  });

  it('calls a missing choice required, and a wrong one by its choices', () => {
    expect(messages({ sizeBytes: 1, days: 1, name: 'x' })).toEqual({ kind: 'is required' });
    expect(messages({ sizeBytes: 1, kind: 'zip', days: 1, name: 'x' })).toEqual({ kind: 'must be one of "static", "container"' });
  });
});
