import { dockerfileInstructions, readDockerfile } from './dockerfile.parse.js';
import type { Manifest } from './manifest.schema.js';
import type { ManifestNote } from './manifest.notes.js';

// What a container demo needs to write, read before any build: a copy's root is read-only, it
// writes only under /app and /tmp (a copy's only writable mounts) as uid 1000.
// Each note names a line of the Dockerfile or a run.env variable that points the app somewhere it
// cannot write, so the builder hears it at `pitch validate` or the deploy's first step, not from a
// copy that dies on EROFS or EACCES in front of a viewer.

const WRITABLE = ['/app', '/tmp'];
const inWritable = (path: string) => WRITABLE.some((w) => path === w || path.startsWith(`${w}/`));
/** Variable names that say "a place to keep files": HOME, DATA_DIR, UPLOAD_PATH, NODE_RED_HOME, DB_FILE… */
const PLACE_NAME = /(?:^|_)(?:HOME|DIR|DIRECTORY|DATA|STORE|STORAGE|UPLOADS?|CACHE|DB|DATABASE|LOGS?)(?:_|$)/i;
const HINT = 'a copy can write only under /app and /tmp (its root is read-only)';

/** An absolute path a place-like variable points outside /app and /tmp, or null. */
function outsidePlace(name: string, value: string | undefined): string | null {
  if (!value || !PLACE_NAME.test(name) || /PATH$/i.test(name)) return null;
  const path = value.trim();
  return path.startsWith('/') && !inWritable(path) ? path : null;
}

/** Folders a shell command makes with mkdir (its operands, options left out). */
function madeFolders(command: string): string[] {
  const found: string[] = [];
  for (const match of command.matchAll(/(?:^|[\s;&|(])mkdir((?:\s+[^\s;&|)]+)+)/g)) {
    found.push(
      ...match[1]
        .trim()
        .split(/\s+/)
        .filter((word) => !word.startsWith('-')),
    );
  }
  return found;
}

export function checkWritableNeeds(dockerfile: string, manifest: Manifest): ManifestNote[] {
  const notes: ManifestNote[] = [];
  const last = readDockerfile(dockerfile).at(-1);
  if (!last) return notes;
  for (const [name, value] of last.env) {
    const path = outsidePlace(name, value);
    if (path)
      notes.push({
        code: 'writes-outside-app',
        message: `The Dockerfile sets ${name}=${path}, but ${HINT}: point it under /app (a folder handed to uid 1000) or /tmp.`,
      });
  }
  if (manifest.kind === 'container') {
    for (const [name, value] of Object.entries(manifest.run?.env ?? {})) {
      const path = outsidePlace(name, value);
      if (path)
        notes.push({
          code: 'writes-outside-app',
          message: `run.env sets ${name}=${path}, but ${HINT}: point it under /app (a folder handed to uid 1000) or /tmp.`,
        });
    }
  }
  // The last stage's own VOLUME and RUN lines (instructions after its FROM).
  const instructions = dockerfileInstructions(dockerfile).filter((i) => i.getRange().start.line + 1 >= last.line);
  for (const instruction of instructions) {
    const line = instruction.getRange().start.line + 1;
    const keyword = instruction.getKeyword();
    const content = (instruction.getArgumentsContent() ?? '').trim();
    if (keyword === 'VOLUME') {
      let paths: string[];
      try {
        paths = content.startsWith('[') ? (JSON.parse(content) as string[]) : content.split(/\s+/);
      } catch {
        paths = content.split(/\s+/);
      }
      notes.push({
        code: 'volume-not-writable',
        message: `VOLUME ${paths.join(' ')} (Dockerfile line ${line}) is not a place a copy can write: ${HINT}, thrown away with the copy. Drop the VOLUME and write under /app.`,
      });
    }
    if (keyword === 'RUN' && !/\bch(?:own|mod)\b/.test(content)) {
      const workdir = last.workdir ?? '/';
      for (const folder of madeFolders(content)) {
        const path = folder.startsWith('/') ? folder : `${workdir.replace(/\/$/, '')}/${folder}`;
        if (path.startsWith('/app/'))
          notes.push({
            code: 'folder-not-writable',
            message: `RUN on Dockerfile line ${line} makes ${path} as root, so the copy (uid 1000) cannot write in it: add \`&& chown 1000:1000 ${path}\`.`,
          });
      }
    }
  }
  return notes;
}
