import type { Instruction } from 'dockerfile-ast';
import { dockerfileInstructions } from '@demo-rooms/contract/manifest';

// The Dockerfile split where the in-process image build (issue 48, item 1) needs it: the head,
// everything up to and including its last step that runs or fetches something (RUN, ADD, FROM,
// ...), which only the engine can make; and the tail after it, steps that only copy files from the
// build context or set metadata. A redeploy whose head, and every file the head reads, equals the
// live build's may remake the tail's COPY layers from the files, without the engine: no later
// step can have read them.

/** Steps the tail may hold: COPY from the context, and metadata that writes no file. */
const METADATA = new Set(['ENV', 'CMD', 'ENTRYPOINT', 'EXPOSE', 'LABEL', 'USER', 'STOPSIGNAL']);

/** A tail COPY: literal sources in the context and a destination, as written. */
export interface TailCopy {
  line: number;
  sources: string[];
  dest: string;
}

/** A WORKDIR of the tail, or a metadata step (its arguments as written). */
export type TailStep =
  | { kind: 'copy'; copy: TailCopy }
  | { kind: 'workdir'; line: number; path: string }
  | { kind: 'metadata'; line: number; text: string };

export interface DockerfileSplit {
  /** The text of every line up to and including the head's last step (comments, continuations and all). */
  head: string;
  /** The tail's steps in order (one history entry each in the image the engine makes). */
  tail: TailStep[];
  /** The head's COPY and ADD steps that read the build context: their line and sources (`*` for "any file"). */
  reads: { line: number; sources: string[] }[];
  /** The last WORKDIR the head sets in the final stage, absolute; null when it sets none. */
  headWorkdir: string | null;
}

/** Why a Dockerfile has no tail the in-process build can make, in one plain clause. */
export class NoTail extends Error {}

/** Splits the Dockerfile; throws NoTail with the reason when its tail cannot be made in-process. */
export function splitDockerfile(text: string): DockerfileSplit {
  const instructions = dockerfileInstructions(text);
  const tailStart = lastIndexWhere(instructions, (i) => !isTailStep(i.getKeyword())) + 1;
  if (tailStart === 0) throw new NoTail('the Dockerfile has no FROM');
  const lines = text.split('\n');
  const headEnd = instructions[tailStart - 1].getRange().end.line;
  const head = lines.slice(0, headEnd + 1).join('\n');

  const reads: DockerfileSplit['reads'] = [];
  let headWorkdir: string | null = null;
  for (const instruction of instructions.slice(0, tailStart)) {
    const keyword = instruction.getKeyword();
    const line = instruction.getRange().start.line + 1;
    if (keyword === 'FROM') headWorkdir = null;
    if (keyword === 'WORKDIR') headWorkdir = absoluteWorkdir(headWorkdir, words(instruction.getArgumentsContent()).join(' '));
    // A RUN may mount the context (--mount=type=bind): it then counts as reading every file.
    if (keyword === 'RUN' && flagsOf(instruction).includes('mount')) reads.push({ line, sources: ['*'] });
    if (keyword !== 'COPY' && keyword !== 'ADD') continue;
    if (flagsOf(instruction).includes('from')) continue; // reads a stage or an image, not the context
    const sources = words(instruction.getArgumentsContent()).slice(0, -1);
    if (keyword === 'ADD' && sources.some((source) => /^[a-z]+:\/\//i.test(source)))
      throw new NoTail(`line ${line} ADDs from a URL, which can change without a file here changing`);
    // Anything but a plain path (a wildcard, a variable, JSON or a heredoc) counts as reading every file.
    reads.push({ line, sources: sources.map((source) => (isPlainPath(source) ? source : '*')) });
  }

  const tail: TailStep[] = [];
  for (const instruction of instructions.slice(tailStart)) {
    const keyword = instruction.getKeyword();
    const line = instruction.getRange().start.line + 1;
    const content = instruction.getArgumentsContent() ?? '';
    if (METADATA.has(keyword)) {
      // As the engine's history names the step: the keyword and its arguments as written.
      tail.push({ kind: 'metadata', line, text: `${keyword} ${words(content).join(' ')}` });
      continue;
    }
    if (keyword === 'WORKDIR') {
      const path = words(content).join(' ');
      if (!path.startsWith('/') || path.includes('$')) throw new NoTail(`the WORKDIR on line ${line} is not a plain absolute path`);
      tail.push({ kind: 'workdir', line, path });
      continue;
    }
    // COPY: the only other tail step (isTailStep).
    const parts = words(content);
    const flag = flagsOf(instruction)[0];
    if (flag) throw new NoTail(`the COPY on line ${line} has --${flag}, which only the engine applies`);
    if (content.trim().startsWith('[') || content.includes('<<')) throw new NoTail(`the COPY on line ${line} is in JSON or heredoc form`);
    if (parts.length < 2) throw new NoTail(`the COPY on line ${line} names no destination`);
    const sources = parts.slice(0, -1);
    const dest = parts.at(-1)!;
    const odd = [...sources.filter((source) => !isTailGlob(source)), dest].find((part) => !isPlainPath(part));
    if (odd) throw new NoTail(`the COPY on line ${line} names ${odd}, not a plain path or a name with * or ? (a variable, [..] or ..)`);
    tail.push({ kind: 'copy', copy: { line, sources, dest } });
  }
  return { head, tail, reads, headWorkdir };
}

/** A step's flags by name (`--chown=…` is `chown`): the parser keeps them out of its arguments. */
function flagsOf(instruction: Instruction): string[] {
  const flags = (instruction as { getFlags?: () => { getName(): string }[] }).getFlags?.() ?? [];
  return flags.map((flag) => flag.getName());
}

function isTailStep(keyword: string): boolean {
  return keyword === 'COPY' || keyword === 'WORKDIR' || METADATA.has(keyword);
}

function lastIndexWhere<T>(items: readonly T[], test: (item: T) => boolean): number {
  for (let i = items.length - 1; i >= 0; i--) if (test(items[i])) return i;
  return -1;
}

/** A step's arguments split on white space (continuations already joined by the parser). */
function words(content: string | null): string[] {
  return (content ?? '')
    .replace(/\\\r?\n/g, ' ')
    .trim()
    .split(/\s+/)
    .filter(Boolean);
}

/** A path with no wildcard, variable, quote or `..` step: what it names is known without the engine. */
function isPlainPath(path: string): boolean {
  return !/[*?[\]$"'\\]/.test(path) && !path.split('/').includes('..');
}

/**
 * A source whose last segment holds `*` or `?` and is otherwise plain (`package*.json`,
 * `src/*.js`): the context files it names are known here, as Go's filepath.Match reads them
 * (build-recipe.ts, globPaths).
 */
function isTailGlob(path: string): boolean {
  const slash = path.lastIndexOf('/');
  const last = path.slice(slash + 1);
  return /[*?]/.test(last) && isPlainPath(path.slice(0, slash + 1)) && isPlainPath(last.replace(/[*?]/g, ''));
}

function absoluteWorkdir(current: string | null, path: string): string | null {
  if (path.startsWith('/')) return path;
  return current ? `${current.replace(/\/$/, '')}/${path}` : null;
}
