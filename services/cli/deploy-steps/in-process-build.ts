import { createReadStream } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { join } from 'node:path';
import type Docker from 'dockerode';
import type { Build } from '@demo-rooms/contract';
import type { Lines } from '../lines.js';
import type { BuildContext } from '../local-engine/build-context.js';
import type { BuildRecipe, RecipeOrReason } from '../local-engine/build-recipe.js';
import type { ConfigFields } from '../local-engine/tail-config.js';
import { engineKind } from '../local-engine/local-copy.js';
import { Refusal } from '../refusal.js';
import type { Finding } from '../scan/findings.js';
import { scanLayer } from '../scan/scan-bundle.js';
import type { SecretScanner } from '../scan/secret-scan.js';
import { pullIntoEngine, type LocalBlob } from '../registry/serving-registry.js';
import { finishInBackground } from './on-interrupt.js';
import type { ReadImage } from '../registry/read-image.js';
import { bytes } from '../ui/table.js';
import type { StepLog } from '../ui/step-log.js';
import { buildInProcess, type InProcessImage } from './in-process-image.js';
import type { AskedTarget } from '../registry/registry-target.js';

// The deploy's side of the in-process image (in-process-image.ts): tried before the engine is
// asked to build; the image laid, its new layers scanned, then pulled into the local engine by
// its manifest's digest and tagged, so the rehearsal starts exactly the image that goes live.
// Whatever it cannot do is said in one line, and the engine builds as before.

export interface InProcessOptions {
  slug: string;
  /** The live build (its kind and image id): the platform's answer, or as this folder's record names it (head-start.ts). */
  live: Pick<Build, 'kind' | 'digest'> | null;
  registry: Promise<{ pushes: boolean; repository: AskedTarget | null }>;
  context: BuildContext | null;
  /** What this deploy's image below the Dockerfile's tail is made from, or why there is no such tail. */
  recipe?: RecipeOrReason;
  /** The recipe this folder's last deploy recorded for the live build. */
  liveRecipe?: BuildRecipe | null;
  /** The live build's layer sizes this folder's last deploy recorded (its manifest's). */
  liveLayers?: Record<string, number> | null;
  /** Called when the laying or the pull needs the project's repository (what this machine does not keep): a head start then waits no more. */
  registryWanted?: () => void;
  /** The laid image's pull, started as soon as it was laid (early-rehearsal.ts); pulled in layInProcess when absent or null. */
  early?: Promise<{ inEngine(): Promise<InEngine | null> }>;
}

export interface LaidImage {
  /** The engine's name for it, which the rehearsal starts: its id (the tag is written beside the copy's start). */
  tag: string;
  /** The config's digest: the image id in the engine and on the platform. */
  imageId: string;
  /** The config's `config` (Env, Cmd, WorkingDir...), as the engine's inspect gives it. */
  image: Record<string, unknown>;
  /** As the push takes it, with the new layers' scan. */
  read: ReadImage;
}

/** The image laid on this machine's disk (in-process-image.ts), and how long that took (ms). */
export type OnDisk = { laid: InProcessImage; ms: number; target: RepositoryAsked } | { reason: string } | null;

/** The project's repository once the platform's token has come; rejects (NoRepository) when it has no registry. */
export type RepositoryAsked = () => Promise<AskedTarget>;

const NO_REGISTRY = "the platform has no image registry to take the live build's layers from";

/**
 * The first half, started before the project folder's scan (deploy-flow.ts): the live build's
 * config and tail layers (kept on this machine, else read from the project's repository) and the
 * kept layers' sizes, the tail's new layers written to `work`. Nothing is sent anywhere: that
 * waits for the scans (layInProcess); the engine pulls the image from this tool beside them
 * (early-rehearsal.ts). Null when there is no live container build to lay the files on (a first
 * deploy, or --force); a reason when the engine must build.
 */
export async function layOnDisk(ctx: Lines, engine: Promise<Docker>, work: string, options: InProcessOptions): Promise<OnDisk> {
  if (options.live?.kind !== 'container' || !options.recipe || !options.context) return null;
  if ('reason' in options.recipe) return { reason: options.recipe.reason };
  if (!options.live.digest) return { reason: 'the live build records no image id' };
  // Laid, pulled and rehearsed while the registry's token is asked: the live build's config and
  // tail layers are most often kept on this machine (kept-blobs.ts), and the repository is asked
  // only for what is not. Whether the platform has a registry at all is looked at in layInProcess.
  const asked = options.registry.then((answer) => answer.repository);
  asked.catch(() => {});
  const target: RepositoryAsked = () => {
    options.registryWanted?.();
    return asked.then((repository) => repository ?? Promise.reject(new NoRepository()));
  };
  // The engine is asked beside the laying (loading its client is slow): only a changed metadata step needs its answer before.
  const kind = engine.then(engineKind);
  kind.catch(() => {});
  const started = performance.now();
  const spoolDir = await mkdtemp(join(work, 'in-process-'));
  let laid: Awaited<ReturnType<typeof buildInProcess>>;
  try {
    laid = await buildInProcess({
      context: options.context,
      split: options.recipe.split,
      recipe: options.recipe.recipe,
      liveRecipe: options.liveRecipe ?? null,
      liveLayers: options.liveLayers ?? null,
      liveImage: options.live.digest,
      target,
      spoolDir,
      trace: (line) => ctx.trace(line),
      baseConfig: (reference) =>
        engine.then((docker) =>
          docker
            .getImage(reference)
            .inspect()
            .then(
              (info) => info.Config as ConfigFields,
              () => null,
            ),
        ),
    });
  } catch (err) {
    if (err instanceof NoRepository) return { reason: NO_REGISTRY };
    throw err;
  }
  // The pull (layInProcess) speaks podman's API (plain HTTP on the loopback); Docker's pull has no such switch.
  if ('reason' in laid) return laid;
  if ((await kind) !== 'podman') return { reason: 'the in-process image is rehearsed through podman, and this engine is Docker' };
  return { laid, ms: performance.now() - started, target };
}

/** The platform answered that it has no image registry: what this machine does not keep cannot be read. */
class NoRepository extends Error {}

/**
 * The laid image in the local engine, by its id (which the rehearsal starts) and the tag that
 * keeps it once `tagged` settles; or why the engine must build instead.
 */
export type InEngine = { tag: string; imageId: string; tagged: Promise<void> } | { reason: string };

/**
 * The image laid on disk pulled into the local engine by its manifest's digest (from a registry
 * this tool serves on 127.0.0.1: the new layers from this machine, any other from the project's
 * repository) and tagged `localhost/pitch-<slug>:in-process`, so the engine keeps it after the
 * deploy. Nothing leaves this machine: the engine takes the image from this tool. The tag is
 * written once `tidyAfter` settles (the rehearsal copy's checks, when it was started early): the
 * copy names the image by its id, and the tag's calls (what the tag held, the tag, the pull's
 * name dropped, the image it held before removed) hold the engine's image store while the copy
 * is made and started, or took its CPU.
 */
export async function pullLaid(
  ctx: Lines,
  docker: Docker,
  slug: string,
  laying: { laid: InProcessImage; target: RepositoryAsked },
  tidyAfter: Promise<unknown> = Promise.resolve(),
): Promise<InEngine> {
  const { laid, target } = laying;
  const local = new Map<string, LocalBlob>(laid.newLayers.map((layer) => [layer.digest, { file: layer.file, size: layer.size }]));
  local.set(laid.read.configDigest, { bytes: laid.read.config! });
  const repo = `localhost/pitch-${slug}`;
  const tag = `${repo}:in-process`;
  let imageId: string;
  let pulledAs: string;
  try {
    ({ id: imageId, reference: pulledAs } = await pullIntoEngine(docker, laid.read, local, target));
  } catch (err) {
    if (err instanceof Refusal) return { reason: `the engine could not take the image laid in-process (${err.message})` };
    throw err;
  }
  ctx.trace('pulled into the engine');
  if (imageId !== laid.read.configDigest)
    return { reason: `the engine read the image laid in-process as ${imageId}, not ${laid.read.configDigest}` };
  const tagged = (async () => {
    await tidyAfter.catch(() => {});
    const before = await docker
      .getImage(tag)
      .inspect()
      .then(
        (info) => info.Id,
        () => null,
      );
    await docker.getImage(imageId).tag({ repo, tag: 'in-process' });
    // The pull's own name (a registry that is gone) dropped, so the tag is the image's one name:
    // the tag's removal then removes the image (a refused deploy's, below in early-rehearsal.ts,
    // or by hand), where it left the image behind under that name before. With the tag written,
    // the engine only untags it. An engine that would not leaves the image as it was.
    await docker
      .getImage(pulledAs)
      .remove()
      .catch(() => {});
    // The image the tag held before is nobody's now; no step waits for its removal, the tool's end does.
    if (before && !imageId.endsWith(before.replace(/^sha256:/, ''))) finishInBackground(docker.getImage(before).remove());
  })();
  finishInBackground(tagged);
  return { tag, imageId, tagged };
}

/**
 * The second half: the image laid on disk (layOnDisk, awaited here), its new layers scanned, then
 * in the engine (pullLaid: pulled here, or already under way since it was laid, `options.early`); null
 * (the line saying why is written) when the engine must build.
 */
export async function layInProcess(
  ctx: Lines,
  log: StepLog,
  docker: Docker,
  scanner: SecretScanner,
  options: InProcessOptions,
  onDisk: Promise<OnDisk>,
): Promise<LaidImage | null> {
  const laying = await onDisk;
  if (!laying) return null;
  const engine = (reason: string) => {
    log.done('build', `with the engine: ${reason}`);
    return null;
  };
  if ('reason' in laying) return engine(laying.reason);
  // Laid before the token came: a platform without a registry takes an engine's bundle instead.
  if (!(await options.registry).repository) return engine(NO_REGISTRY);
  const { laid } = laying;
  // The line's time is the laying's own and this half's, not the scan's it ran beside.
  const started = performance.now() - laying.ms;

  // The new layers' scan, before anything is sent anywhere.
  for (const layer of laid.newLayers) {
    const found: Finding[] = [];
    if ((await scanLayer(scanner, createReadStream(layer.file), laid.read.scan, found)) !== null) laid.read.scan.findings.push(...found);
    laid.read.scan.layers++;
  }
  laid.read.scan.baseLayers = laid.read.layers.length - laid.newLayers.length;
  ctx.trace('new layers scanned');

  const pulled = (await (await options.early)?.inEngine()) ?? (await pullLaid(ctx, docker, options.slug, laying));
  if ('reason' in pulled) return engine(pulled.reason);
  const { imageId } = pulled;

  const sizes = laid.newLayers.reduce((sum, layer) => sum + layer.size, 0);
  const count = laid.newLayers.length;
  const seconds = ((performance.now() - started) / 1000).toFixed(2);
  const layers = (n: number) => `${n} ${n === 1 ? 'layer' : 'layers'}`;
  const config =
    laid.configChanged.length > 0 ? `; its config's ${laid.configChanged.join(', ')} written from the steps after the last RUN` : '';
  log.done(
    'build',
    count === 0 && !config
      ? `the live build's image: the files its last COPY steps copy are unchanged (checked without the engine in ${seconds} s)`
      : count === 0
        ? `image laid without the engine in ${seconds} s: the live build's ${layers(laid.read.layers.length)} kept${config}`
        : `image laid without the engine in ${seconds} s: ${count} new ${count === 1 ? 'layer' : 'layers'} (${bytes(sizes)}) from the files its last COPY steps copy; the live build's ${layers(laid.read.layers.length - count)} below kept${config}`,
  );
  ctx.detail(`image     ${imageId} pulled into the engine from this machine for the rehearsal`);
  return { tag: imageId, imageId, image: laid.config.config ?? {}, read: laid.read };
}
