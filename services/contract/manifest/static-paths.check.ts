import { posix } from 'node:path';
import type { Manifest } from './manifest.schema.js';
import { formatPath, type FolderProblem } from './manifest.problem.js';

/** Tells whether a file exists, by its path relative to the output root (`docs/index.html`). */
export type OutputFiles = ReadonlySet<string> | ((path: string) => boolean);

/**
 * The files a step path may name, relative to the output root: the path itself, then an
 * index.html inside it. The query and fragment are not part of the file; percent-escapes are
 * decoded as a static server would. A path that climbs above the root names no file.
 */
export function stepPathCandidates(stepPath: string): string[] {
  const bare = stepPath.replace(/[?#].*$/s, '');
  let decoded: string;
  try {
    decoded = decodeURIComponent(bare);
  } catch {
    decoded = bare;
  }
  // Normalising `/..` would quietly land on the root's index.html; a climb names nothing.
  if (climbs(decoded)) return [];
  const relative = posix.normalize(`/${decoded}`).replace(/^\/+/, '').replace(/\/+$/, '');
  return relative === '' ? ['index.html'] : [relative, `${relative}/index.html`];
}

function climbs(path: string): boolean {
  let depth = 0;
  for (const part of path.split('/')) {
    if (part === '..') depth -= 1;
    else if (part !== '' && part !== '.') depth += 1;
    if (depth < 0) return true;
  }
  return false;
}

/**
 * Rule 8: each static step's path must be a file in the output, or a folder with an
 * index.html. Pure, so the platform applies it to an unpacked build's file list and the
 * command-line tool to a folder.
 */
export function checkStaticStepPaths(manifest: Manifest, files: OutputFiles): FolderProblem[] {
  if (manifest.kind !== 'static' || !manifest.story) return [];
  const has = typeof files === 'function' ? files : (path: string) => files.has(path);
  const problems: FolderProblem[] = [];
  manifest.story.forEach((step, index) => {
    if (step.path === undefined) return;
    if (stepPathCandidates(step.path).some(has)) return;
    problems.push({
      code: 'step-path-missing',
      path: formatPath(['story', index, 'path']),
      message: `no file ${step.path} in the output, and no index.html inside it`,
    });
  });
  return problems;
}
