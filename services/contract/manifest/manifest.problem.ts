/** Where a manifest problem is: keys and array indexes from the manifest's root. */
export type FieldPath = readonly PropertyKey[];

/** One thing wrong with a manifest; `path` is rendered by formatPath ('' is the manifest itself). */
export interface Problem {
  path: string;
  message: string;
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * Renders a path the way a builder reads it in pitch.json: `apps[2].id`, `run.env["MY-KEY"]`.
 * Keys that are not identifiers are quoted so the path stays unambiguous.
 */
export function formatPath(path: FieldPath): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else if (typeof key === 'string' && IDENTIFIER.test(key)) out += out === '' ? key : `.${key}`;
    else out += `[${JSON.stringify(String(key))}]`;
  }
  return out;
}

/** Problems found in the project folder (rules 8-11), each with a stable code for tools. */
export type FolderProblemCode =
  | 'step-path-missing'
  | 'page-outside'
  | 'page-missing'
  | 'page-too-long'
  | 'output-outside'
  | 'output-not-folder'
  | 'dockerfile-missing'
  | 'workdir-not-app'
  | 'cmd-missing';

export interface FolderProblem extends Problem {
  code: FolderProblemCode;
}
