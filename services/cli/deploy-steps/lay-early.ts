import type { ContainerManifest } from '@demo-rooms/contract/manifest';
import type { Lines } from '../lines.js';
import type { FoundEngine } from '../local-engine/local-docker.js';
import type { EarlyStart } from './early-rehearsal.js';
import type { InProcessOptions, OnDisk } from './in-process-build.js';
import type { ContainerInputs } from './unchanged-inputs.js';

// A redeploy's image laid on this machine and, once laid, pulled and rehearsed: started by the
// deploy once its inputs are read (deploy-flow.ts), or as the tool starts (head-start.ts). Its
// modules are loaded here, when a deploy goes on, not by whoever imports this file.

/**
 * layOnDisk (in-process-build.ts) once the live build is known, and the laid image's pull and
 * rehearsal as soon as it is laid (early-rehearsal.ts). The deploy awaits `launched` before the
 * scan's modules load: loading them holds this thread for most of the scan, and the pull (the
 * engine pulls from this tool) needs it, as do the live config and the layers' sizes, round trips
 * that would otherwise wait for it. The copy's start (podman's create and start, 0.3 s, then a
 * Node server under half a CPU) runs while the modules load and the folder is scanned, so the
 * layers go up while the copy comes up: waiting for the copy's start first kept 0.3-0.4 s of a
 * redeploy's time (docs/scale.md, "Issue 48").
 */
export function layEarly(
  ctx: Lines,
  engine: Promise<FoundEngine>,
  work: string,
  slug: string,
  live: Promise<InProcessOptions['live']>,
  registry: InProcessOptions['registry'],
  inputs: ContainerInputs,
  manifest: ContainerManifest,
  healthTimeoutMs: number,
  registryWanted?: () => void,
): { onDisk: Promise<OnDisk>; early: Promise<EarlyStart> } {
  const docker = engine.then((found) => found.docker);
  const modules = Promise.all([import('./in-process-build.js'), import('./early-rehearsal.js')]);
  const onDisk = Promise.all([live, modules]).then(([build, [{ layOnDisk }]]) =>
    layOnDisk(ctx, docker, work, {
      slug,
      live: build,
      registry,
      context: inputs.context,
      recipe: inputs.recipe,
      liveRecipe: inputs.liveRecipe,
      liveLayers: inputs.liveLayers,
      registryWanted,
    }),
  );
  const early = modules.then(([, { startEarly }]) => startEarly(ctx, docker, slug, onDisk, manifest, healthTimeoutMs));
  // Awaited by prepareContainer, or by the deploy's end after a refusal: not unhandled ones.
  onDisk.catch(() => {});
  docker.catch(() => {});
  early.catch(() => {});
  return { onDisk, early };
}
