import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { baseImageIds } from './build-inputs.js';
import type { BuildContext, ContextEntry } from './build-context.js';
import type { ImageInspector } from './engine-socket.js';
import { NoTail, splitDockerfile, type DockerfileSplit } from './dockerfile-tail.js';

// What a build's image below its tail was made from (issue 48, item 1): the Dockerfile's head,
// each base by the id the engine has for it, and the files each head COPY or ADD reads. Recorded
// beside the inputs digest for the live build (unchanged-inputs.ts); a redeploy whose recipe
// equals the record, and whose Dockerfile tail is the same text, may remake the tail's layers
// in-process. Each part is kept apart so the fallback can say which one changed.

export interface BuildRecipe {
  /** sha256 of the Dockerfile's head (text up to its last RUN-like step) and bases. */
  head: string;
  /** sha256 of the text after the head. */
  tail: string;
  /**
   * The text after the head: when only its metadata steps changed (ENV, CMD...), the live image's
   * config is checked against it and rewritten without the engine (tail-config.ts). Absent in a
   * record made before it was kept: such a change then goes to the engine.
   */
  tailText?: string;
  /** Per head COPY/ADD that reads the context: its line and the sha256 of the files it reads. */
  reads: { line: number; files: string }[];
  /**
   * Per tail COPY, the same: a COPY whose files equal the live build's record keeps the live
   * build's layer without its bytes being read (node_modules is not laid again for a code change).
   * Absent in a record made before it was kept: every tail COPY is then laid and compared.
   */
  copies?: { line: number; files: string }[];
}

/** The recipe, with the split it came from; or the reason the Dockerfile has no in-process tail. */
export type RecipeOrReason = { recipe: BuildRecipe; split: DockerfileSplit } | { reason: string };

export async function buildRecipe(
  docker: ImageInspector,
  dockerfile: string,
  context: BuildContext,
  digestOf: (path: string) => Promise<string>,
): Promise<RecipeOrReason> {
  let split: DockerfileSplit;
  try {
    split = splitDockerfile(dockerfile);
  } catch (err) {
    if (err instanceof NoTail) return { reason: err.message };
    throw err;
  }
  const head = createHash('sha256').update(split.head);
  for (const [reference, id] of await baseImageIds(docker, dockerfile)) head.update(`\n${JSON.stringify(['base', reference, id])}`);
  const filesDigest = async (sources: string[]) => {
    const hash = createHash('sha256');
    for (const entry of entriesUnder(context, sources)) {
      const content = entry.type === 'file' ? await digestOf(join(context.dir, entry.path)) : (entry.target ?? '');
      hash.update(`${JSON.stringify([entry.type, entry.path, entry.mode, content])}\n`);
    }
    return hash.digest('hex');
  };
  const reads: BuildRecipe['reads'] = [];
  for (const read of split.reads) reads.push({ line: read.line, files: await filesDigest(read.sources) });
  const copies: NonNullable<BuildRecipe['copies']> = [];
  for (const step of split.tail)
    if (step.kind === 'copy') copies.push({ line: step.copy.line, files: await filesDigest(step.copy.sources) });
  const tailText = dockerfile.slice(split.head.length);
  const tail = createHash('sha256').update(tailText).digest('hex');
  return { recipe: { head: head.digest('hex'), tail, tailText, reads, copies }, split };
}

/** The context's entries a step with these sources reads (`*`, `.` or `./`: all of them; `package*.json`: what it matches). */
export function entriesUnder(context: BuildContext, sources: string[]): ContextEntry[] {
  const named = sources.map(contextPath);
  if (named.some((root) => root === '' || root === '*')) return context.entries;
  const roots = named.flatMap((root) => (isGlob(root) ? globPaths(context, root) : [root]));
  return context.entries.filter((entry) => roots.some((root) => entry.path === root || entry.path.startsWith(`${root}/`)));
}

/** Whether a context path names files by `*` or `?` (in its last segment: dockerfile-tail.ts). */
export function isGlob(path: string): boolean {
  return path !== '*' && /[*?]/.test(path);
}

/**
 * The context paths a source with `*` or `?` in its last segment matches, as Go's filepath.Match
 * (the engine's COPY) reads it: `*` any run of characters but `/`, `?` one; entries the engine
 * was sent only to read (Dockerfile, .dockerignore when ignored) are not copied, so not matched.
 */
export function globPaths(context: BuildContext, path: string): string[] {
  const slash = path.lastIndexOf('/');
  const folder = path.slice(0, Math.max(slash, 0));
  const pattern = new RegExp(
    `^${path
      .slice(slash + 1)
      .replace(/[.+^${}()|\\]/g, '\\$&')
      .replace(/\*/g, '[^/]*')
      .replace(/\?/g, '[^/]')}$`,
  );
  return context.entries
    .filter((entry) => !entry.ignored)
    .filter((entry) => {
      const at = entry.path.lastIndexOf('/');
      return entry.path.slice(0, Math.max(at, 0)) === folder && pattern.test(entry.path.slice(at + 1));
    })
    .map((entry) => entry.path);
}

/** A COPY source as a context path: no leading `./` or `/`, no trailing `/`; the context's root is ''. */
export function contextPath(source: string): string {
  if (source === '*') return '*';
  return source
    .split('/')
    .filter((part) => part !== '' && part !== '.')
    .join('/');
}

/**
 * Why the image below the tail may differ, in one clause; null when it is the same. A changed
 * tail is the in-process build's to judge (only its metadata may have changed: in-process-image.ts).
 */
export function recipeChange(recorded: BuildRecipe, now: BuildRecipe): string | null {
  if (recorded.head !== now.head) return 'the Dockerfile up to its last RUN, or its base image, changed';
  const changed = now.reads.find((read, i) => recorded.reads[i]?.line !== read.line || recorded.reads[i]?.files !== read.files);
  if (changed || recorded.reads.length !== now.reads.length)
    return `files an earlier step reads changed (the COPY or ADD on line ${changed?.line ?? now.reads.at(-1)?.line})`;
  return null;
}
