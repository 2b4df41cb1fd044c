import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type Docker from 'dockerode';
import { checkManifest, type ContainerManifest } from '@demo-rooms/contract/manifest';
import type { Build } from '@demo-rooms/contract';
import type { CliContext } from '../context.js';
import { buildImage } from '../local-engine/build-image.js';
import { findEngine } from '../local-engine/local-docker.js';
import { checkBuiltImage, startCommandOf } from '../local-engine/image-checks.js';
import { startLocalCopy } from '../local-engine/local-copy.js';
import { baseLayersOf, saveBundle } from '../local-engine/save-bundle.js';
import { problemsRefusal } from '../project/read-manifest.js';
import { Refusal } from '../refusal.js';
import { ENV_ADVICE, secretsRefusal } from '../scan/findings.js';
import { imageEnv, scanEnvironment } from '../scan/scan-environment.js';
import type { SecretScanner } from '../scan/secret-scan.js';
import { bytes } from '../ui/table.js';
import type { StepLog } from '../ui/step-log.js';
import type { Artefact, Unchanged } from './artefact.js';
import { cleanedUpOnInterrupt } from './on-interrupt.js';
import { sameBuild } from './unchanged.js';
import { checkStillUp, rehearseStory, waitForHealth } from './rehearsal.js';
import { version } from '../version.js';

export interface ContainerOptions {
  slug: string;
  healthTimeoutMs: number;
  /** The project's live build, when the deploy may stop at "nothing changed" (not with --force). */
  live: Build | null;
  /** The platform has an image registry: the image is pushed at upload time, and no bundle is made. */
  pushes: boolean;
}

/**
 * A container build's half of the deploy: the image build, rule 11 on the result, the bundle's
 * and start environment's scans, the rehearsal on a local copy, and the bundle (made while the
 * image is read for its scan). An image and manifest the live build already has are answered as
 * `unchanged`, before the scans, rehearsal and bundle, which would only make that build again.
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
  const { docker, where } = await findEngine();
  ctx.detail(`engine    ${where}`);
  const tag = `localhost/pitch-${options.slug}:deploy`;

  const before = await imageIdOf(docker, tag);
  log.begin('build', 'image from Dockerfile');
  await buildImage(docker, dir, tag, (line) => ctx.detail(line));
  const { Id: imageId, Config: image } = await docker.getImage(tag).inspect();
  log.done('build', `image built in ${log.elapsed()}${imageId === before ? ' (unchanged: every layer from the cache)' : ''}`);
  // The image the tag held before, now untagged, is nobody's cache any more.
  if (before && before !== imageId)
    await docker
      .getImage(before)
      .remove()
      .catch(() => {});

  checkBuiltImage(dockerfile, image);
  const run = { ...manifest.run, start: manifest.run?.start ?? startCommandOf(image) };
  const checked = checkManifest({ ...manifest, run });
  if (!checked.ok) throw problemsRefusal(checked.problems);
  if (sameBuild(options.live, 'container', imageId, checked.manifest)) return { unchanged: options.live };

  log.begin('scan', 'image layers the build added');
  const file = options.pushes ? null : join(work, 'bundle.tar.gz');
  const saved = await saveBundle(docker, tag, file, scanner, await baseLayersOf(docker, dockerfile));
  if (saved.scan.findings.length > 0) throw secretsRefusal('the container image', saved.scan.findings);
  const env = [
    ...imageEnv(image.Env),
    ...Object.entries(run.env ?? {}).map(([name, value]) => ({ from: 'pitch.json run.env', name, value })),
  ];
  const envFindings = await scanEnvironment(scanner, env);
  if (envFindings.length > 0) throw secretsRefusal('the start environment', envFindings, ENV_ADVICE);
  log.done(
    'scan',
    `image: ${saved.scan.layers} layers of yours, ${saved.scan.files} text files; start environment: ${env.length} variables; no secrets`,
  );

  log.begin('rehearse', `a local copy with PORT and HOST, health path ${manifest.health}`);
  const copy = await startLocalCopy(docker, tag, run.start, run.env ?? {});
  const rehearsal = await cleanedUpOnInterrupt(
    async () => {
      const health = await waitForHealth(copy, manifest.health, options.healthTimeoutMs);
      const steps = await rehearseStory(copy, manifest);
      await checkStillUp(copy, manifest.health);
      return { tool: `pitch/${version}`, at: new Date().toISOString(), health: { path: manifest.health, ...health }, steps };
    },
    () => copy.remove(),
  );
  const calls = rehearsal.steps.reduce((n, step) => n + step.calls.length, 0);
  log.done(
    'rehearse',
    `healthy in ${(rehearsal.health.ms / 1000).toFixed(1)} s; ${rehearsal.steps.length} story steps, ${calls} calls passed`,
  );

  if (file === null) return { kind: 'container' as const, file: '', sizeBytes: 0, image: { tag }, manifest: checked.manifest, rehearsal };
  log.done('pack', `image bundle, ${bytes(saved.sizeBytes)} gzipped`);
  return { kind: 'container' as const, file, sizeBytes: saved.sizeBytes, manifest: checked.manifest, rehearsal };
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
