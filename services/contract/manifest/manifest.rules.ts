import { formatPath } from './manifest.problem.js';

// Cross-field rules 1-7 of spec 2.1, and the platform's rule that a container build carries
// `run`. Rules 4 and 7 (controls, and a step's run, on a static build) are fields of the static
// variant in manifest.schema.ts, so the JSON Schema expresses them too; the rest compare
// fields and cannot be said in JSON Schema.
//
// The value may be only partly valid (the rules run even when a field is wrong, so one pass
// reports everything), hence every read here is defensive.

export interface RuleProblem {
  path: (string | number)[];
  message: string;
}

type Entry = { index: number; item: Record<string, unknown> };

function entries(list: unknown): Entry[] {
  if (!Array.isArray(list)) return [];
  return list.flatMap((item, index) =>
    item !== null && typeof item === 'object' && !Array.isArray(item) ? [{ index, item: item as Record<string, unknown> }] : [],
  );
}

/** A problem at each later declaration of an id already declared earlier in the same list. */
function duplicateIds(listPath: (string | number)[], list: unknown, what: string): RuleProblem[] {
  const firstAt = new Map<string, number>();
  const problems: RuleProblem[] = [];
  for (const { index, item } of entries(list)) {
    if (typeof item.id !== 'string') continue;
    const first = firstAt.get(item.id);
    if (first === undefined) firstAt.set(item.id, index);
    else
      problems.push({
        path: [...listPath, index, 'id'],
        message: `${what} id "${item.id}" is already declared at ${formatPath([...listPath, first])}`,
      });
  }
  return problems;
}

export function crossFieldProblems(value: unknown, options: { requireRun: boolean }): RuleProblem[] {
  if (value === null || typeof value !== 'object') return [];
  const manifest = value as Record<string, unknown>;
  const apps = entries(manifest.apps);
  const story = entries(manifest.story);
  const controls = manifest.controls as Record<string, unknown> | undefined;
  const problems: RuleProblem[] = [];

  // Rule 1.
  problems.push(...duplicateIds(['apps'], manifest.apps, 'app'));

  // Rule 2: the first default stands; each later one is the problem.
  const defaults = apps.filter(({ item }) => item.default === true);
  for (const { index } of defaults.slice(1)) {
    problems.push({
      path: ['apps', index, 'default'],
      message: `only one app may be the default, and apps[${defaults[0].index}] already is`,
    });
  }

  // Rule 3.
  if (controls !== null && typeof controls === 'object') {
    problems.push(...duplicateIds(['controls', 'scenarios'], controls.scenarios, 'scenario'));
  }

  // Rule 5.
  problems.push(...duplicateIds(['story'], manifest.story, 'step'));

  // Rule 6.
  const appIds = new Set(apps.map(({ item }) => item.id).filter((id) => typeof id === 'string'));
  for (const { index, item } of story) {
    if (typeof item.app === 'string' && !appIds.has(item.app)) {
      problems.push({ path: ['story', index, 'app'], message: `app "${item.app}" is not declared in apps` });
    }
  }

  // The platform runs a container build with `run.start`; the command-line tool may fill it in.
  if (options.requireRun && manifest.kind === 'container' && manifest.run === undefined) {
    problems.push({ path: ['run'], message: 'a container build needs run, with the start command' });
  }

  return problems;
}
