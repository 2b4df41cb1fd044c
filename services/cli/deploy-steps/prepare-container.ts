import { mkdtemp, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import type Docker from 'dockerode';
import { checkManifest, type ContainerManifest } from '@demo-rooms/contract/manifest';
import type { Build } from '@demo-rooms/contract';
import type { CliContext } from '../context.js';
import { buildImage } from '../local-engine/build-image.js';
import { readBuildContext, type BuildContext } from '../local-engine/build-context.js';
import { engineMessage } from '../local-engine/engine-message.js';
import { findEngine, type FoundEngine } from '../local-engine/local-docker.js';
import { checkBuiltImage, startCommandOf } from '../local-engine/image-checks.js';
import { engineKind } from '../local-engine/local-copy.js';
import { baseLayersOf, saveBundle, type SavedBundle } from '../local-engine/save-bundle.js';
import { problemsRefusal } from '../project/read-manifest.js';
import { Refusal } from '../refusal.js';
import { ENV_ADVICE, secretsRefusal } from '../scan/findings.js';
import { imageEnv, scanEnvironment } from '../scan/scan-environment.js';
import type { SecretScanner } from '../scan/secret-scan.js';
import { bytes } from '../ui/table.js';
import type { StepLog } from '../ui/step-log.js';
import type { Artefact, Unchanged } from './artefact.js';
import { sameBuild } from './unchanged.js';
import { rehearseLocally } from './rehearsal.js';
import {
  blobSize,
  has,
  imageInRegistry,
  putManifest,
  sendBlobs,
  type OpenedUploads,
  type PushResult,
  type PushTarget,
} from '../registry/push-image.js';
import { EnginePushUnavailable, readImageByEnginePush, type HeldLayer, type InspectedImage } from '../registry/engine-push.js';
import type { AskedTarget, WorkspaceLayers } from '../registry/registry-target.js';
import { readImage, type ReadImage } from '../registry/read-image.js';
import type { BuildRecipe, RecipeOrReason } from '../local-engine/build-recipe.js';
import { layInProcess, layOnDisk, type OnDisk } from './in-process-build.js';
import { onThisMachine } from '../local-engine/engine-socket.js';
import type { EarlyStart } from './early-rehearsal.js';

export interface ContainerOptions {
  slug: string;
  healthTimeoutMs: number;
  /** The project's live build, when the deploy may stop at "nothing changed" (not with --force). */
  live: Build | null;
  /**
   * Asked while the image builds: whether the platform has an image registry (the image is then
   * pushed at upload time, and no bundle is made), and the project's repository in it when the
   * project exists (what it has is not kept to be sent).
   */
  registry: Promise<{ pushes: boolean; repository: AskedTarget | null; elsewhere?: WorkspaceLayers | null }>;
  /** The build context as read for the inputs digest (the same list is sent); read here when null. */
  context: BuildContext | null;
  /** What the image below the Dockerfile's tail is made from, and the live build's record of it (in-process-build.ts). */
  recipe?: RecipeOrReason;
  liveRecipe?: BuildRecipe | null;
  /** The engine, looked for while the folder was scanned; looked for here when absent. */
  engine?: Promise<FoundEngine>;
  /** A redeploy's image, laid on disk while the folder was scanned (layOnDisk); laid here when absent. */
  onDisk?: Promise<OnDisk>;
  /** That image's pull and rehearsal, started as soon as it was laid (early-rehearsal.ts). */
  early?: Promise<EarlyStart>;
  /** Upload sessions opened for that image's blobs once the registry's token came (openUploads); the deploy's end closes those left. */
  uploads?: Promise<OpenedUploads | null>;
}

/**
 * A container build's half of the deploy: the image build, rule 11 on the result, the start
 * environment's and the image's scans, and the rehearsal on a local copy beside the image's scan.
 * The image is read out of the engine once: for its scan and, in the same pass, the layers the
 * registry lacks kept to be sent (or, without a registry, the bundle). An image and manifest the
 * live build already has are answered as `unchanged`, before the scans, rehearsal and read,
 * which would only make that build again.
 *
 * The image stays tagged `localhost/pitch-<slug>:deploy` after the deploy: it holds the layer
 * cache the next build of the project starts from (removing it took its intermediate layers with
 * it, and every redeploy built from scratch, issue 29). The image it replaces is removed.
 */
export async function prepareContainer(
  ctx: CliContext,
  log: StepLog,
  dir: string,
  manifest: ContainerManifest,
  scanner: SecretScanner,
  work: string,
  options: ContainerOptions,
): Promise<Artefact | Unchanged> {
  const dockerfilePath = join(dir, 'Dockerfile');
  if (
    !(await stat(dockerfilePath).then(
      (info) => info.isFile(),
      () => false,
    ))
  ) {
    throw new Refusal(
      'missing Dockerfile: a container build needs a Dockerfile at the project root',
      'its last stage must set WORKDIR /app and have a CMD',
    );
  }
  const dockerfile = await readFile(dockerfilePath, 'utf8');
  const { docker, where } = await (options.engine ?? findEngine());
  ctx.detail(`engine    ${where}`);
  // Asked now, while the image builds: the rehearsal needs it (see engineKind).
  void engineKind(docker);
  const tag = `localhost/pitch-${options.slug}:deploy`;

  // A redeploy whose only changes are files its last COPY steps copy: laid without the engine.
  const onDisk = options.onDisk ?? layOnDisk(ctx, Promise.resolve(docker), work, options);
  const laid = await layInProcess(ctx, log, docker, scanner, options, onDisk);
  const built = laid
    ? {
        tag: laid.tag,
        imageId: laid.imageId,
        image: laid.image as ImageConfig,
        diffIds: laid.read.layers.map((l) => l.digest),
        imageSize: 0,
      }
    : await buildWithEngine(ctx, log, docker, tag, dir, options.context);
  const { imageId, image, imageSize } = built;
  const rootFs = { Layers: built.diffIds };

  checkBuiltImage(dockerfile, image);
  const run = { ...manifest.run, start: manifest.run?.start ?? startCommandOf(image) };
  const checked = checkManifest({ ...manifest, run });
  if (!checked.ok) throw problemsRefusal(checked.problems);
  const liveImage = options.live?.kind === 'container' ? options.live.digest : null;
  if (sameBuild(options.live, 'container', imageId, checked.manifest)) return { unchanged: options.live };

  // The start environment's scan reads no image: first, before a copy starts.
  const env = [
    ...imageEnv(image.Env),
    ...Object.entries(run.env ?? {}).map(([name, value]) => ({ from: 'pitch.json run.env', name, value })),
  ];
  const envFindings = await scanEnvironment(scanner, env);
  if (envFindings.length > 0) throw secretsRefusal('the start environment', envFindings, ENV_ADVICE);

  // The image's one read (scan, and the layers to send) and the rehearsal run side by side: the
  // engine spends about a second writing the image out before it sends a byte, and the copy's
  // start and health take as long. Nothing leaves this machine before both have passed; a failed
  // scan stops the rehearsal and is the refusal, as it came first before.
  // Which layers of an image read from the engine are the build's own (one laid in-process is not read).
  const baseLayers = laid ? new Set<string>() : await baseLayersOf(docker, dockerfile);
  ctx.trace('image checked, start environment scanned, base layers listed');
  log.begin('scan', 'image layers the build added');
  log.begin('rehearse', `a local copy with PORT and HOST, health path ${manifest.health}`);
  // An image laid in-process most often runs already (early-rehearsal.ts), if with this very run.
  const early = laid ? await (await options.early)?.take(run) : null;
  const rehearsing = early ?? rehearseLocally(docker, built.tag, manifest, run, options.healthTimeoutMs, (line) => ctx.trace(line));
  // An image laid in-process was scanned as it was laid: its new layers, config and manifest go
  // up to the project's repository while the copy starts and answers. No build names it until the
  // rehearsal has passed (createBuild, push-build.ts), so nothing is deployed before it; a manifest
  // a failed rehearsal leaves is deleted a day later (workers/leftovers-sweep/pushed-manifests.sweep.ts).
  const pushed = laid && laid.read.scan.findings.length === 0 ? pushEarly(ctx, options, laid.read, rehearsing.result) : undefined;
  let read: ReadImage | null = null;
  let bundle: SavedBundle | null = null;
  let unread = false;
  try {
    const { pushes, repository, elsewhere = null } = await options.registry;
    // Laid in-process: its new layers scanned as they were laid, the others the live build's.
    if (laid) {
      read = laid.read;
      unread = laid.read.scan.layers === 0;
    }
    // The live build's image with another pitch.json: scanned when it was deployed, and its
    // repository holds it whole, so it is not read at all (the rehearsal still runs).
    else if (pushes && repository && liveImage === imageId) {
      read = await imageInRegistry(repository, imageId, rootFs?.Layers ?? []);
      unread = read !== null;
    }
    if (pushes && !read) {
      const inspected = { id: imageId, diffIds: rootFs?.Layers ?? [], size: imageSize };
      read = await readImageOnce(ctx, docker, tag, inspected, scanner, baseLayers, work, repository ?? elsewhere);
    } else if (!pushes) bundle = await saveBundle(docker, tag, join(work, 'bundle.tar.gz'), scanner, baseLayers);
  } catch (err) {
    await rehearsing.stop();
    await pushed?.catch(() => {});
    throw err;
  }
  const scan = (read ?? bundle)!.scan;
  if (scan.findings.length > 0) {
    await rehearsing.stop();
    await pushed?.catch(() => {});
    throw secretsRefusal('the container image', scan.findings);
  }
  const fromEngine = read?.fromEngine;
  const scanned =
    laid && !unread
      ? `${laid.read.scan.layers} new ${laid.read.scan.layers === 1 ? 'layer' : 'layers'} laid from your files, ${scan.files} text files; the live build's other layers scanned when it was deployed`
      : unread
        ? `the live build's image, its layers scanned when it was deployed and not read again`
        : fromEngine
          ? `read ${fromEngine.layers} new ${fromEngine.layers === 1 ? 'layer' : 'layers'} (${bytes(fromEngine.bytes)}) from the engine, ${scan.files} text files scanned; the other ${(rootFs?.Layers?.length ?? 0) - fromEngine.layers} the platform already has, not read`
          : `${scan.layers} layers of yours, ${scan.files} text files`;
  log.done('scan', `image: ${scanned}; start environment: ${env.length} variables; no secrets`);

  // A failed rehearsal waits for the layers under way (their files are removed after it).
  const rehearsal = await rehearsing.result.catch(async (err: unknown) => {
    await pushed?.catch(() => {});
    throw err;
  });
  const calls = rehearsal.steps.reduce((n, step) => n + step.calls.length, 0);
  log.done(
    'rehearse',
    `healthy in ${(rehearsal.health!.ms / 1000).toFixed(1)} s; ${rehearsal.steps.length} story steps, ${calls} calls passed`,
  );

  if (read)
    return {
      kind: 'container' as const,
      file: '',
      sizeBytes: 0,
      image: { tag: built.tag, read, pushed },
      manifest: checked.manifest,
      rehearsal,
    };
  const file = join(work, 'bundle.tar.gz');
  log.done('pack', `image bundle, ${bytes(bundle!.sizeBytes)} gzipped`);
  return { kind: 'container' as const, file, sizeBytes: bundle!.sizeBytes, manifest: checked.manifest, rehearsal };
}

/**
 * The in-process image pushed to the project's repository (its blobs, then its manifest), started
 * beside the rehearsal: the manifest's wait on the registry (its blobs checked in the store) was
 * the last step but createBuild after the rehearsal.
 */
function pushEarly(
  ctx: CliContext,
  options: Pick<ContainerOptions, 'registry' | 'uploads'>,
  read: ReadImage,
  rehearsal: Promise<unknown>,
): Promise<PushResult> {
  let failed = false;
  rehearsal.catch(() => (failed = true));
  const sending = (async () => {
    const { repository } = await options.registry;
    if (!repository) throw new Refusal('the platform no longer offers its image registry', 'deploy again');
    const uploads = await options.uploads?.catch(() => null);
    const sent = await sendBlobs(repository, read, uploads ?? undefined).finally(() => uploads?.close());
    ctx.trace('layers and config sent, beside the rehearsal');
    // A rehearsal failed by now makes no build: its manifest is not sent (blobs no manifest names are no image).
    if (failed) throw new Refusal('the rehearsal failed');
    const pushed = await putManifest(repository, read, sent);
    ctx.trace('manifest sent, beside the rehearsal');
    return pushed;
  })();
  // Awaited by the push, or after a failure: a failure meanwhile is not an unhandled one.
  sending.catch(() => {});
  return sending;
}

/**
 * The image read once out of the engine for the push: the layers the build added scanned, the
 * layers the platform lacks kept in `work` until they are sent. With podman, the engine pushes to
 * this tool (registry/engine-push.ts) and reads out only those layers: on a redeploy, the ones the
 * project's repository lacks; on a project's first deploy, the ones no other repository of its
 * workspace holds (those are mounted from there at the push). Otherwise, or when that engine
 * cannot reach this machine's loopback, the image is saved whole (`docker save`), and a first
 * deploy keeps every layer (a push would compress every layer).
 */
async function readImageOnce(
  ctx: CliContext,
  docker: Docker,
  tag: string,
  inspected: InspectedImage,
  scanner: SecretScanner,
  baseLayers: Set<string>,
  work: string,
  platform: PushTarget | WorkspaceLayers | null,
): Promise<ReadImage> {
  const repository = platform && 'repository' in platform ? platform : null;
  if (platform && onThisMachine(docker) && (await engineKind(docker)) === 'podman') {
    try {
      const spoolDir = await mkdtemp(join(work, 'engine-push-'));
      return await readImageByEnginePush(docker, tag, inspected, {
        present: (digest) => ('repository' in platform ? heldByProject(platform, digest) : heldElsewhere(platform, digest)),
        spoolDir,
        scan: { scanner, baseLayers },
      });
    } catch (err) {
      if (!(err instanceof EnginePushUnavailable)) throw err;
      ctx.detail(`image     read whole instead (${err.message})`);
    }
  }
  let archive: Readable;
  try {
    archive = (await docker.getImage(tag).get()) as Readable;
  } catch (err) {
    throw new Refusal(`the engine could not save the image: ${engineMessage(err)}`);
  }
  const present = repository ? (digest: string) => has(repository, digest) : async () => false;
  return readImage(archive, { present, spoolDir: work, scan: { scanner, baseLayers } });
}

/**
 * A redeploy's layer in the project's repository, else in one of the workspace's other repositories
 * its token reads (`mountFrom`): a layer another project holds (a base this project did not use
 * before) is then mounted from there at the push, not read out of the engine.
 */
async function heldByProject(target: PushTarget, digest: string): Promise<HeldLayer | null> {
  const size = await blobSize(target, digest);
  if (size !== null) return { size };
  const others = target.mountFrom ?? [];
  return others.length ? heldElsewhere({ registryUrl: target.registryUrl, token: target.token, repositories: others }, digest) : null;
}

/**
 * The first of the workspace's other repositories that holds a blob (asked side by side), with its
 * size; null when none does. One that cannot be asked (a scope the platform did not grant, a
 * project deleted meanwhile) is one that does not hold it: the engine then reads the layer out.
 */
async function heldElsewhere(layers: WorkspaceLayers, digest: string): Promise<HeldLayer | null> {
  const sizes = await Promise.all(
    layers.repositories.map((repository) =>
      blobSize({ registryUrl: layers.registryUrl, token: layers.token, repository }, digest).catch(() => null),
    ),
  );
  const at = sizes.findIndex((size) => size !== null);
  return at < 0 ? null : { size: sizes[at]!, mountFrom: layers.repositories[at] };
}

type ImageConfig = Docker.ImageInspectInfo['Config'];

/**
 * The engine's build of the Dockerfile, tagged `tag`; the image the tag held before is removed
 * (nobody's cache any more).
 */
async function buildWithEngine(ctx: CliContext, log: StepLog, docker: Docker, tag: string, dir: string, context: BuildContext | null) {
  const before = await imageIdOf(docker, tag);
  log.begin('build', 'image from Dockerfile');
  await buildImage(docker, context ?? (await readBuildContext(dir)), tag, (line) => ctx.detail(line));
  const { Id: imageId, Config: image, RootFS: rootFs, Size: imageSize } = await docker.getImage(tag).inspect();
  log.done('build', `image built in ${log.elapsed()}${imageId === before ? ' (unchanged: every layer from the cache)' : ''}`);
  if (before && before !== imageId)
    await docker
      .getImage(before)
      .remove()
      .catch(() => {});
  return { tag, imageId, image, diffIds: rootFs?.Layers ?? [], imageSize };
}

/** The id of the image a tag names, or null when there is none. */
async function imageIdOf(docker: Docker, tag: string): Promise<string | null> {
  return docker
    .getImage(tag)
    .inspect()
    .then(
      (info) => info.Id,
      () => null,
    );
}
