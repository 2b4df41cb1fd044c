import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import tar from 'tar-stream';
import type { BuildContext } from '../local-engine/build-context.js';
import { recipeChange, type BuildRecipe } from '../local-engine/build-recipe.js';
import { copyLayerEntries, writeLayer, type FolderHeaders } from '../local-engine/copy-layer.js';
import { NoTail, type DockerfileSplit, type TailStep } from '../local-engine/dockerfile-tail.js';
import { withFields, type ConfigFields } from '../local-engine/tail-config.js';
import { keptBlob } from '../registry/kept-blobs.js';
import { blobSize, type PushTarget } from '../registry/push-image.js';
import type { ReadImage } from '../registry/read-image.js';
import { openBlob, readSmallBlob } from '../registry/registry-blobs.js';
import { tailChange } from './tail-metadata.js';

// A redeploy's image without the engine (issue 48, item 1): when the Dockerfile ends in steps that
// only copy files from the context or set metadata, and the live build was made from the same
// Dockerfile, the same files for every step before those and the same base (the recipe this
// folder's last deploy recorded), only the tail's COPY layers can differ. They are laid here from
// the files (copy-layer.ts); every layer below is the live build's, taken by digest from its
// config (kept on this machine since its push, kept-blobs.ts, else read from the project's
// repository); the new config is the live one with the new diff ids, and
// the history's tail entries dated now. When the tail's text is the live one's, the metadata its
// steps set (Env, WorkingDir, Cmd...) is the live config's as it stands; when only its metadata
// steps changed, those fields are worked out as the engine would write them (tail-metadata.ts).
// Anything else is a reason, and the engine builds.

/** The image's config as the engine writes it: the fields this code reads or rewrites. */
interface ImageConfig {
  created?: string;
  config?: Record<string, unknown>;
  rootfs: { type: string; diff_ids: string[] };
  history?: { created?: string; created_by?: string; comment?: string; empty_layer?: boolean }[];
  [field: string]: unknown;
}

export interface InProcessImage {
  /** As the push reads it: the new layers spooled, every other layer the repository's already. */
  read: ReadImage;
  /** The config parsed (its `config` holds Env, Cmd, WorkingDir...: what the engine's inspect calls Config). */
  config: ImageConfig;
  /** The new layers' files, for their scan and the engine's pull. */
  newLayers: { digest: string; size: number; file: string }[];
  /** The config fields a changed metadata step after the last RUN rewrote (Env, Cmd...); empty when none. */
  configChanged: string[];
}

export interface InProcessInputs {
  context: BuildContext;
  split: DockerfileSplit;
  recipe: BuildRecipe;
  /** The recipe recorded for the live build by this folder's last deploy; null when there is none. */
  liveRecipe: BuildRecipe | null;
  /** The live build's layer sizes as that deploy's manifest named them; null when not recorded. */
  liveLayers?: Record<string, number> | null;
  /** The live build's image id (its config's digest). */
  liveImage: string;
  /** The project's repository, asked only for what this machine does not keep (its token may still be on its way). */
  target: () => Promise<PushTarget>;
  spoolDir: string;
  /** A base image's config as the local engine has it (null: not there), for a changed metadata step. */
  baseConfig: (reference: string) => Promise<ConfigFields | null>;
  /** Where the time went, a line at a time (PITCH_TIMINGS). */
  trace?: (line: string) => void;
}

/** The image, or why the engine must build it (one clause). */
export async function buildInProcess(inputs: InProcessInputs): Promise<InProcessImage | { reason: string }> {
  const { split, target } = inputs;
  if (!inputs.liveRecipe) return { reason: 'this folder has no record of what the live build was made from' };
  const change = recipeChange(inputs.liveRecipe, inputs.recipe);
  if (change) return { reason: change };
  const trace = inputs.trace ?? (() => {});
  const keptConfig = await keptBlob(inputs.liveImage);
  const configBytes = keptConfig ?? (await readSmallBlob(await target(), inputs.liveImage));
  if (!configBytes) return { reason: "the project's repository does not hold the live build's image" };
  trace(`live build's config read${keptConfig ? ', kept on this machine' : ' from the registry'}`);
  const live = JSON.parse(configBytes.toString('utf8')) as ImageConfig;
  const history = live.history ?? [];
  const diffIds = live.rootfs?.diff_ids ?? [];
  const tail = await tailChange(split, inputs.recipe, inputs.liveRecipe, (live.config ?? {}) as ConfigFields, inputs.baseConfig);
  if ('reason' in tail) return tail;

  // The live tail's steps are the last history entries, one each; only its COPY steps made layers.
  const tailHistory = history.slice(history.length - tail.liveTail.length);
  const keywords = tail.liveTail.map((step) => (step.kind === 'copy' ? 'COPY' : step.kind === 'workdir' ? 'WORKDIR' : null));
  const mismatch =
    tailHistory.length !== tail.liveTail.length ||
    tailHistory.some((entry, i) => !matches(entry, keywords[i], tail.liveTail[i].kind === 'copy'));
  if (mismatch) return { reason: "the live image's history does not match its Dockerfile's last steps" };
  const copies = tail.liveTail.filter((step) => step.kind === 'copy').length;
  const below = diffIds.slice(0, diffIds.length - copies);
  const liveTail = diffIds.slice(diffIds.length - copies);

  const stepTime = new Date(Math.floor(Date.now() / 1000) * 1000);
  const laidLayers: { digest: string; size: number; file: string | null }[] = [];
  let workdir = split.headWorkdir;
  try {
    for (const step of split.tail) {
      if (step.kind === 'workdir') workdir = step.path;
      if (step.kind !== 'copy') continue;
      const liveDigest = liveTail[laidLayers.length];
      // Its files as the live build's record has them: that layer is kept, its bytes not read.
      const recorded = inputs.liveRecipe.copies?.[laidLayers.length];
      const now = inputs.recipe.copies?.[laidLayers.length];
      // (The COPY steps are the live ones in the same order, tail-metadata.ts: a line may have moved.)
      if (recorded && now && recorded.files === now.files) {
        laidLayers.push({ digest: liveDigest, size: -1, file: null });
        continue;
      }
      const keptLayer = await keptBlob(liveDigest);
      const liveBlob = keptLayer ? Readable.from([keptLayer]) : await openBlob(await target(), liveDigest);
      if (!liveBlob) return { reason: "the project's repository does not hold the live build's layers" };
      const liveLayer = await readLayer(liveBlob);
      const entries = copyLayerEntries(inputs.context, step.copy, workdir, liveLayer.folders, stepTime);
      const file = join(inputs.spoolDir, `in-process-${laidLayers.length}.tar`);
      const written = await writeLayer(entries, file);
      // The same files as the live layer's: that layer is kept, so an unchanged tail is the live image.
      const same = (await readLayer(createReadStream(file))).summary === liveLayer.summary;
      laidLayers.push(same ? { digest: liveDigest, size: -1, file: null } : { ...written, file });
    }
  } catch (err) {
    if (err instanceof NoTail) return { reason: err.message };
    throw err;
  }

  trace('tail layers laid');
  // Sizes of the layers kept, for the manifest: as this folder's last deploy named them, else as
  // the repository holds them (a HEAD each, 0.1 s of a redeploy through the api's gate). The
  // platform's check of the image compares every size with the stored blob's whichever it is.
  const kept = [...below, ...laidLayers.filter((layer) => layer.file === null).map((layer) => layer.digest)];
  const recordedSizes = inputs.liveLayers ?? {};
  const asked = kept.filter((digest) => recordedSizes[digest] === undefined);
  const repository = asked.length > 0 ? await target() : null;
  const sizes = await Promise.all(asked.map((digest) => blobSize(repository!, digest)));
  if (sizes.some((size) => size === null)) return { reason: "the project's repository does not hold the live build's layers" };
  const sizeOf = new Map<string, number>([
    ...kept.filter((digest) => recordedSizes[digest] !== undefined).map((digest): [string, number] => [digest, recordedSizes[digest]]),
    ...asked.map((digest, i): [string, number] => [digest, sizes[i]!]),
  ]);
  const layers = [...below.map((digest) => ({ digest, size: 0, file: null })), ...laidLayers].map((layer) =>
    layer.file === null ? { ...layer, size: sizeOf.get(layer.digest)! } : layer,
  );
  trace(`kept layers' sizes: ${kept.length - asked.length} recorded, ${asked.length} asked of the registry`);
  const newLayers = laidLayers.flatMap((layer) => (layer.file === null ? [] : [{ ...layer, file: layer.file }]));
  const scan = { layers: 0, baseLayers: 0, files: 0, findings: [] };
  // The same files and metadata as the live build's: its image is this one (same id).
  if (newLayers.length === 0 && tail.fields === null) {
    const read = { config: configBytes, configDigest: inputs.liveImage, configSize: configBytes.length, layers, scan };
    return { read, config: live, newLayers, configChanged: [] };
  }

  const created = stepTime.toISOString();
  const config: ImageConfig = {
    ...live,
    created,
    config: tail.fields ? withFields(live.config ?? {}, tail.fields) : live.config,
    rootfs: { type: 'layers', diff_ids: layers.map((layer) => layer.digest) },
    history: [
      ...history.slice(0, history.length - tail.liveTail.length),
      ...tailEntries(split.tail, tail.liveTail, tailHistory, laidLayers, created, tail.fields !== null),
    ],
  };
  // The engine's own references to its intermediate images mean nothing outside it.
  delete config.parent;
  delete config.container;
  const bytes = Buffer.from(JSON.stringify(config));
  const read: ReadImage = {
    config: bytes,
    configDigest: `sha256:${createHash('sha256').update(bytes).digest('hex')}`,
    configSize: bytes.length,
    layers,
    scan,
  };
  return { read, config, newLayers, configChanged: tail.changed };
}

/**
 * The history's entries for the tail's steps: a kept layer's and a WORKDIR's are the live ones (the
 * WORKDIR dated now), a new layer's says it was laid here; a metadata step's is the live one
 * (dated now) when the tail is unchanged, else written as the engine writes it.
 */
function tailEntries(
  steps: TailStep[],
  liveSteps: TailStep[],
  liveHistory: NonNullable<ImageConfig['history']>,
  laid: { digest: string; file: string | null }[],
  created: string,
  metadataChanged: boolean,
): NonNullable<ImageConfig['history']> {
  const liveOf = (kind: TailStep['kind']) => liveHistory.filter((_, i) => liveSteps[i].kind === kind);
  const [liveCopies, liveWorkdirs] = [liveOf('copy'), liveOf('workdir')];
  let [copyIndex, workdirIndex] = [0, 0];
  return steps.map((step, i) => {
    if (step.kind === 'workdir') return { ...liveWorkdirs[workdirIndex++], created };
    if (step.kind === 'metadata')
      return metadataChanged
        ? { created, created_by: `/bin/sh -c #(nop) ${step.text}`, comment: 'written by pitch, without the engine', empty_layer: true }
        : { ...liveHistory[i], created };
    const layer = laid[copyIndex];
    const entry = liveCopies[copyIndex++];
    if (layer.file === null) return entry;
    return {
      created,
      created_by: `/bin/sh -c #(nop) COPY file:${layer.digest.slice(7)} in ${step.copy.dest} `,
      comment: 'laid by pitch from the files, without the engine',
    };
  });
}

/** Whether a history entry is the tail step's: its keyword, and a layer only for a COPY. */
function matches(entry: { created_by?: string; empty_layer?: boolean }, keyword: string | null, copy: boolean): boolean {
  if (copy !== !entry.empty_layer) return false;
  return keyword === null || (entry.created_by ?? '').includes(`#(nop) ${keyword}`);
}

/**
 * A layer's tar read once: its folders' owners and modes by absolute path, and a summary of every
 * entry (name, type, mode, owner, size, contents; a folder's time left out, as the engine stamps
 * the folders a COPY writes into with the moment it ran) to tell a layer of the same files.
 */
async function readLayer(stream: Readable): Promise<{ folders: FolderHeaders; summary: string }> {
  const folders: FolderHeaders = new Map();
  const lines: string[] = [];
  const extract = tar.extract();
  const reading = pipeline(stream, extract);
  for await (const entry of extract) {
    const { name, type, uid, gid, mode, size, mtime } = entry.header;
    const path = `/${name.replace(/^\.?\/+/, '').replace(/\/+$/, '')}`;
    if (type === 'directory') folders.set(path, { uid: uid ?? 0, gid: gid ?? 0, mode: (mode ?? 0o755) & 0o7777 });
    const hash = createHash('sha256');
    for await (const chunk of entry) hash.update(chunk as Buffer);
    const time = type === 'directory' ? null : mtime?.getTime();
    lines.push(JSON.stringify([path, type, (mode ?? 0) & 0o7777, uid, gid, size, time, hash.digest('hex')]));
  }
  await reading;
  return { folders, summary: lines.sort().join('\n') };
}
