import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { ImageInspector } from './engine-socket.js';
import { fileDigest, type BuildContext } from './build-context.js';
import { eachAtMost } from '../each-at-most.js';

// The digest of everything an image build reads (issue 48, item 3): the Dockerfile, each file of
// the context with its mode (what .dockerignore leaves: build-context.ts), the build arguments,
// and each base image by its reference and the id the engine has for it (a `docker pull` that
// moved `node:24` is a change). pitch.json is in it too, as the build that goes live carries it.
// Two deploys with the same digest would build the same image, so the second need not build.

/** The base image references of a Dockerfile's FROM lines, less stages named earlier and `scratch`. */
export function baseReferences(dockerfile: string): string[] {
  const stages = new Set<string>();
  const bases: string[] = [];
  for (const line of dockerfile.split('\n')) {
    const m = /^\s*FROM\s+(?:--\S+\s+)*(\S+)(?:\s+AS\s+(\S+))?/i.exec(line);
    if (!m) continue;
    const [, image, stage] = m;
    if (!stages.has(image.toLowerCase()) && image !== 'scratch') bases.push(image);
    if (stage) stages.add(stage.toLowerCase());
  }
  return bases;
}

const asked = new WeakMap<ImageInspector, Map<string, Promise<[string, string][]>>>();

/**
 * Each base the Dockerfile names, with the local engine's image id for it ('absent' when it has
 * none); asked once per engine and Dockerfile in a run of the tool (the inputs digest and the
 * build recipe both read it, before any build).
 */
export function baseImageIds(docker: ImageInspector, dockerfile: string): Promise<[string, string][]> {
  let byText = asked.get(docker);
  if (!byText) asked.set(docker, (byText = new Map()));
  let ids = byText.get(dockerfile);
  if (!ids) {
    ids = askBaseImageIds(docker, dockerfile);
    byText.set(dockerfile, ids);
  }
  return ids;
}

async function askBaseImageIds(docker: ImageInspector, dockerfile: string): Promise<[string, string][]> {
  const ids: [string, string][] = [];
  for (const reference of baseReferences(dockerfile)) {
    const id = await docker
      .getImage(reference)
      .inspect()
      .then(
        (info) => info.Id,
        () => 'absent',
      );
    ids.push([reference, id]);
  }
  return ids;
}

export interface BuildInputs {
  dockerfile: string;
  manifestText: string;
  context: BuildContext;
  /** Build arguments the build is given (none today: the deploy passes none). */
  buildArgs: Record<string, string>;
  /** A file's sha256 (hex); a FileDigestCache's reads only what changed. */
  digestOf?: (path: string) => Promise<string>;
}

/** Context files looked at together: a stat each when the digest cache knows them, a read when it does not. */
const DIGESTS_AT_ONCE = 16;

/** sha256 (`sha256:<hex>`) of the build's inputs, read before any build. */
export async function buildInputsDigest(docker: ImageInspector, inputs: BuildInputs): Promise<string> {
  const hash = createHash('sha256');
  const digestOf = inputs.digestOf ?? fileDigest;
  const line = (...parts: (string | number)[]) => hash.update(`${JSON.stringify(parts)}\n`);
  line('dockerfile', inputs.dockerfile);
  line('pitch.json', inputs.manifestText);
  for (const [name, value] of Object.entries(inputs.buildArgs).sort()) line('arg', name, value);
  // The engine is asked for the bases while the files are looked at, DIGESTS_AT_ONCE at a time
  // (most are a stat against the digest cache: one at a time, a hundred files were a hundred
  // round trips in a row); the lines go into the hash in the entries' order all the same.
  const bases = baseImageIds(docker, inputs.dockerfile);
  const contents: string[] = new Array(inputs.context.entries.length);
  await eachAtMost(
    DIGESTS_AT_ONCE,
    inputs.context.entries.map((entry, i) => async () => {
      contents[i] = entry.type === 'file' ? await digestOf(join(inputs.context.dir, entry.path)) : (entry.target ?? '');
    }),
  );
  for (const [reference, id] of await bases) line('base', reference, id);
  inputs.context.entries.forEach((entry, i) => line(entry.type, entry.path, entry.mode.toString(8), contents[i]));
  return `sha256:${hash.digest('hex')}`;
}
