import type { z } from 'zod';
import { Manifest, ManifestFile } from './manifest.schema.js';
import { formatPath, type Problem } from './manifest.problem.js';

export type ManifestCheck = { ok: true; manifest: Manifest } | { ok: false; problems: Problem[] };

export interface CheckManifestOptions {
  /**
   * The platform's rule that a container build carries `run` (default true). The command-line
   * tool passes false when it checks pitch.json before it fills `run` in from the image.
   */
  requireRun?: boolean;
}

/**
 * Checks a manifest against spec 2.1 (fields and cross-field rules 1-7). No I/O: the same
 * check runs in the platform and in the command-line tool. All problems come in one pass.
 */
export function checkManifest(input: unknown, options: CheckManifestOptions = {}): ManifestCheck {
  const schema = options.requireRun === false ? ManifestFile : Manifest;
  const result = schema.safeParse(input, { error: plainMessage });
  if (result.success) return { ok: true, manifest: result.data };
  return { ok: false, problems: result.error.issues.flatMap(toProblems) };
}

/** One zod issue as problems a person reads, each at the path of its field. */
export function toProblems(issue: z.core.$ZodIssue): Problem[] {
  if (issue.code === 'unrecognized_keys') {
    // One problem per field, each at its own path, so `controls` on a static build reads
    // `controls: unknown field` rather than a list at the manifest's root.
    return issue.keys.map((key) => ({ path: formatPath([...issue.path, key]), message: 'unknown field' }));
  }
  if (issue.code === 'invalid_union') {
    // When only one choice fits the value's type (a step call given as an object, say), its
    // own problems are the useful ones: `story[0].run[1].body` rather than `story[0].run[1]`.
    const fitting = issue.errors.filter((choice) => !choice.some((inner) => inner.code === 'invalid_type' && inner.path.length === 0));
    if (fitting.length === 1) {
      return fitting[0].flatMap((inner) => toProblems({ ...inner, path: [...issue.path, ...inner.path] }));
    }
  }
  if (issue.code === 'invalid_key') {
    return [{ path: formatPath(issue.path), message: `field name ${issue.issues[0]?.message ?? 'is not allowed'}` }];
  }
  return [{ path: formatPath(issue.path), message: issue.message }];
}

const ARTICLE: Record<string, string> = {
  array: 'an array',
  object: 'an object',
  record: 'an object',
  string: 'a string',
  boolean: 'true or false',
  number: 'a number',
  int: 'a whole number',
};

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

/**
 * Messages a builder can act on, in place of zod's defaults: pass it as the parse's `error`
 * (`schema.safeParse(data, { error: plainMessage })`). The schema's own messages (the patterns,
 * the other kind's fields) take precedence over these.
 */
export function plainMessage(issue: z.core.$ZodRawIssue): string | undefined {
  switch (issue.code) {
    case 'invalid_type':
      if (issue.input === undefined) return 'is required';
      return `must be ${ARTICLE[issue.expected] ?? issue.expected}`;
    case 'too_small': {
      const min = Number(issue.minimum);
      if (issue.origin === 'array') return `must have at least ${plural(min, 'item')}`;
      if (issue.origin === 'number' || issue.origin === 'int' || issue.origin === 'bigint')
        return issue.inclusive === false ? `must be more than ${min}` : `must be at least ${min}`;
      return min === 1 ? 'must not be empty' : `must be at least ${plural(min, 'character')}`;
    }
    case 'too_big': {
      const max = Number(issue.maximum);
      if (issue.origin === 'array') return `must have at most ${plural(max, 'item')}`;
      if (issue.origin === 'number' || issue.origin === 'int' || issue.origin === 'bigint')
        return issue.inclusive === false ? `must be less than ${max}` : `must be at most ${max}`;
      return `must be at most ${plural(max, 'character')}`;
    }
    case 'invalid_value':
      if (issue.input === undefined) return 'is required';
      return `must be one of ${issue.values.map((value) => JSON.stringify(value)).join(', ')}`;
    case 'invalid_union':
      // Step calls have their own message; what is left is the kind, or a value in a body.
      return 'discriminator' in issue ? 'must be "container" or "static"' : 'must be a JSON value';
    case 'invalid_format':
      return issue.format === 'regex' ? `must match ${issue.pattern}` : undefined;
    default:
      return undefined;
  }
}
