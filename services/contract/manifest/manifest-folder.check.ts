import { readFile, realpath, stat } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { checkDockerfile } from './dockerfile.check.js';
import { manifestNotes, type ManifestNote } from './manifest.notes.js';
import { formatPath, type FolderProblem } from './manifest.problem.js';
import type { Manifest } from './manifest.schema.js';
import { checkStaticStepPaths, stepPathCandidates } from './static-paths.check.js';
import { checkWritableNeeds } from './writable-needs.check.js';

// Folder rules 8-11 of spec 2.1: what a manifest says about the files beside it. The only
// part of the manifest checks with I/O; the command-line tool runs it on the project folder.

export interface FolderCheck {
  problems: FolderProblem[];
  /** Advisory, never blocking: the folder's notes and those of the manifest itself. */
  notes: ManifestNote[];
}

/** Rule 9's limit, in characters (JavaScript string length of the file read as UTF-8). */
export const PAGE_MAX_CHARS = 2_000_000;

/** Whether `child` is `parent` or inside it; both absolute and already free of symlinks. */
function isInside(parent: string, child: string): boolean {
  const rel = relative(parent, child);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/** The real path, or null when nothing is there. */
async function realOrNull(path: string): Promise<string | null> {
  try {
    return await realpath(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw error;
  }
}

async function isFile(path: string): Promise<boolean> {
  const info = await stat(path).catch(() => null);
  return info?.isFile() ?? false;
}

async function charCount(path: string, bytes: number): Promise<number> {
  // UTF-8 takes 1 to 3 bytes per UTF-16 unit: small files pass and huge ones fail unread.
  if (bytes <= PAGE_MAX_CHARS) return bytes;
  if (bytes > 3 * PAGE_MAX_CHARS) return Math.ceil(bytes / 3);
  return (await readFile(path, 'utf8')).length;
}

async function checkPage(root: string, page: string, index: number): Promise<FolderProblem | null> {
  const path = formatPath(['pages', index]);
  const target = resolve(root, page);
  if (!isInside(root, target)) {
    return { code: 'page-outside', path, message: `${page} is outside the project folder` };
  }
  const real = await realOrNull(target);
  if (real === null) return { code: 'page-missing', path, message: `${page} does not exist` };
  if (!isInside(root, real)) {
    return { code: 'page-outside', path, message: `${page} leads outside the project folder through a link` };
  }
  const info = await stat(real);
  if (!info.isFile()) return { code: 'page-missing', path, message: `${page} is not a file` };
  if ((await charCount(real, info.size)) > PAGE_MAX_CHARS) {
    return { code: 'page-too-long', path, message: `${page} is longer than ${PAGE_MAX_CHARS.toLocaleString('en')} characters` };
  }
  return null;
}

async function checkOutput(root: string, manifest: Extract<Manifest, { kind: 'static' }>, out: FolderCheck): Promise<void> {
  const target = resolve(root, manifest.output);
  if (!isInside(root, target)) {
    out.problems.push({ code: 'output-outside', path: 'output', message: `${manifest.output} is outside the project folder` });
    return;
  }
  const real = await realOrNull(target);
  if (real !== null && !isInside(root, real)) {
    out.problems.push({
      code: 'output-outside',
      path: 'output',
      message: `${manifest.output} leads outside the project folder through a link`,
    });
    return;
  }
  const indexMissing: ManifestNote = {
    code: 'output-index-missing',
    message: `${join(manifest.output, 'index.html')} is not there yet; the build must write it.`,
  };
  if (real === null) {
    // Not built yet: rule 8 waits for the build, which the deploy runs before checking again.
    out.notes.push(indexMissing);
    return;
  }
  if (!(await stat(real)).isDirectory()) {
    out.problems.push({ code: 'output-not-folder', path: 'output', message: `${manifest.output} is not a folder` });
    return;
  }
  if (!(await isFile(join(real, 'index.html')))) out.notes.push(indexMissing);

  const candidates = (manifest.story ?? []).flatMap((step) => (step.path ? stepPathCandidates(step.path) : []));
  const present = new Set<string>();
  for (const candidate of new Set(candidates)) {
    if (await isFile(join(real, candidate))) present.add(candidate);
  }
  out.problems.push(...checkStaticStepPaths(manifest, present));
  out.notes.push(...(await pointNotes(real, manifest)));
}

/** A note for each story step whose `point` finds nothing in the page the step shows. */
async function pointNotes(output: string, manifest: Extract<Manifest, { kind: 'static' }>): Promise<ManifestNote[]> {
  const notes: ManifestNote[] = [];
  for (const [index, step] of (manifest.story ?? []).entries()) {
    if (!step.point) continue;
    const path = step.path ?? manifest.apps.find((a) => a.id === step.app)?.path;
    if (!path) continue;
    let page: string | null = null;
    for (const candidate of stepPathCandidates(path)) {
      if (/\.html?$/i.test(candidate) && (await isFile(join(output, candidate)))) {
        page = candidate;
        break;
      }
    }
    if (!page) continue;
    // The HTML parser (htmlparser2: about 30 modules) loads only for a step that points at
    // something: every deploy and validate without one starts that much sooner.
    const { selectorInHtml } = await import('./point-selector.js');
    if (selectorInHtml(step.point, await readFile(join(output, page), 'utf8')) === 'missing') {
      notes.push({
        code: 'point-not-found',
        message: `story[${index}].point ${JSON.stringify(step.point)} finds nothing in ${join(manifest.output, page)}: the step will show no ring, unless the page's script adds the element.`,
      });
    }
  }
  return notes;
}

async function checkContainer(root: string, manifest: Manifest, out: FolderCheck): Promise<void> {
  const path = join(root, 'Dockerfile');
  if (!(await isFile(path))) {
    out.problems.push({
      code: 'dockerfile-missing',
      path: 'Dockerfile',
      message: 'a container build needs a Dockerfile at the project root',
    });
    return;
  }
  const text = await readFile(path, 'utf8');
  const found = checkDockerfile(text);
  out.problems.push(...found.problems);
  out.notes.push(...found.notes, ...checkWritableNeeds(text, manifest));
}

/**
 * Rules 8-11 against the project folder (the folder of pitch.json), with every advisory note.
 * Problem paths name the manifest field at fault (`pages[3]`, `story[1].path`, `output`), or
 * `Dockerfile` for rule 11.
 */
export async function checkManifestFolder(manifest: Manifest, projectDir: string): Promise<FolderCheck> {
  const root = await realpath(projectDir);
  const out: FolderCheck = { problems: [], notes: [] };
  const pages = await Promise.all((manifest.pages ?? []).map((page, index) => checkPage(root, page, index)));
  out.problems.push(...pages.filter((problem) => problem !== null));
  if (manifest.kind === 'static') await checkOutput(root, manifest, out);
  else await checkContainer(root, manifest, out);
  out.notes.push(...manifestNotes(manifest));
  return out;
}
