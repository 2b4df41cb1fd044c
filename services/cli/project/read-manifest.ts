import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { checkManifest, type Manifest, type Problem } from '@demo-rooms/contract/manifest';
import { Refusal } from '../refusal.js';

export const MANIFEST_FILE = 'pitch.json';

export interface ManifestFile {
  /** The project folder, absolute. */
  dir: string;
  /** pitch.json's text as written, for line numbers. */
  text: string;
  json: unknown;
}

/** pitch.json of a folder, read and parsed as JSON; a missing or broken file is a refusal naming it. */
export async function readManifestFile(folder: string): Promise<ManifestFile> {
  const dir = resolve(folder);
  const path = join(dir, MANIFEST_FILE);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new Refusal(`no ${MANIFEST_FILE} in ${dir}`, 'run `pitch init` there to write one');
    throw err;
  }
  try {
    return { dir, text, json: JSON.parse(text) };
  } catch (err) {
    throw new Refusal(`${MANIFEST_FILE} is not JSON: ${jsonErrorWhere(text, err as Error)}`);
  }
}

/** JSON.parse's message with the position turned into a line and column a person can find. */
function jsonErrorWhere(text: string, err: Error): string {
  const message = err.message.replace(/\s*in JSON at position \d+.*$/s, '').replace(/, ".*" is not valid JSON$/s, ' ');
  const position = /position (\d+)/.exec(err.message);
  if (!position) return message.trim();
  const before = text.slice(0, Number(position[1]));
  const line = before.split('\n').length;
  const column = Number(position[1]) - before.lastIndexOf('\n');
  return `${message.trim()} at line ${line}, column ${column}`;
}

/** One problem as printed: the file, the field's path, the message. */
export function formatProblem(problem: Problem): string {
  if (problem.path === 'Dockerfile') return `Dockerfile: ${problem.message}`;
  return problem.path ? `${MANIFEST_FILE}: ${problem.path}: ${problem.message}` : `${MANIFEST_FILE}: ${problem.message}`;
}

/** A refusal for a list of problems: the first one named in full, the count of the rest. */
export function problemsRefusal(problems: Problem[]): Refusal {
  const rest = problems.length - 1;
  return new Refusal(
    formatProblem(problems[0]),
    rest > 0 ? `and ${rest} more problem${rest === 1 ? '' : 's'}: \`pitch validate\` lists them all` : undefined,
    problems.slice(1).map(formatProblem),
  );
}

/**
 * The manifest's schema and cross-field rules. `run` may be left out of pitch.json: the deploy
 * fills it in from the image's start command.
 */
export function manifestOf(file: ManifestFile): Manifest {
  const checked = checkManifest(file.json, { requireRun: false });
  if (!checked.ok) throw problemsRefusal(checked.problems);
  return checked.manifest;
}
