import { readFile, realpath } from 'node:fs/promises';
import { join } from 'node:path';
import type { Project } from '@demo-rooms/contract';
import { readConfig, updateConfig } from '../config/config-file.js';
import type { Lines } from '../lines.js';
import { readBuildContext, type BuildContext } from '../local-engine/build-context.js';
import { baseImageIds, buildInputsDigest } from '../local-engine/build-inputs.js';
import type { ImageInspector } from '../local-engine/engine-socket.js';
import { buildRecipe, type BuildRecipe, type RecipeOrReason } from '../local-engine/build-recipe.js';
import { FileDigestCache } from '../local-engine/file-digest-cache.js';
import { folderKey } from '../project/folder-key.js';

// "Unchanged means instant" (issue 48, item 3): a container deploy whose inputs digest equals the
// one this folder's last deploy recorded, for the build that is still the project's live one,
// stops before the engine builds anything. The record is kept in the tool's own config file
// (docs/decisions/cli-deploy.md): on another machine, or after a deploy from elsewhere
// made another build live, there is no matching record and the deploy builds as before, where the
// engine's cache and the image-id comparison (unchanged.ts) still stop an unchanged one.

export interface ContainerInputs {
  dockerfile: string;
  context: BuildContext;
  /** `sha256:<hex>` of the Dockerfile, context, build args, bases and pitch.json. */
  digest: string;
  /** Whether it equals the record for the project's live build. */
  unchanged: boolean;
  /** ms spent reading and hashing. */
  ms: number;
  /** What the image below the Dockerfile's tail is made from, or why it has no tail laid in-process. */
  recipe: RecipeOrReason;
  /** The record of the live build's recipe, when this folder's last deploy made the live build. */
  liveRecipe: BuildRecipe | null;
  /** The live build's layers and sizes, as this folder's last deploy pushed them; null when not recorded. */
  liveLayers: Record<string, number> | null;
}

/** The folder's build context and inputs digest, and whether the project's live build was made from the same. */
export async function readContainerInputs(
  ctx: Lines,
  docker: ImageInspector,
  dir: string,
  manifestText: string,
  /** Asked of the platform while the files are read (as the tool starts: the project the record names, head-start.ts). */
  projectAsked: Promise<Pick<Project, 'id' | 'liveBuildId'> | null>,
  /** Whether the deploy goes on when the inputs are unchanged (--force): only then is their recipe needed. */
  force = false,
  /** Called as soon as the deploy is known to go on (the inputs changed, or --force), before the recipe is made. */
  goesOn: () => void = () => {},
): Promise<ContainerInputs> {
  const started = performance.now();
  // The Dockerfile's bases asked of the engine while the context is listed (the digest and the
  // recipe take the same answer: baseImageIds asks once).
  const dockerfileRead = readFile(join(dir, 'Dockerfile'), 'utf8');
  void dockerfileRead.then((text) => baseImageIds(docker, text)).catch(() => {});
  const [context, dockerfile, cache] = await Promise.all([
    readBuildContext(dir),
    dockerfileRead,
    realpath(dir).then((real) => FileDigestCache.open(real)),
  ]);
  ctx.trace(`build context listed (${context.entries.length} entries)`);
  const digest = await buildInputsDigest(docker, {
    dockerfile,
    manifestText,
    context,
    buildArgs: {},
    digestOf: (path) => cache.digest(path),
  });
  ctx.trace('inputs digest made');
  const recorded = (await readConfig()).builtFrom[await folderKey(ctx.apiUrl, dir)];
  const project = await projectAsked;
  const live = project?.liveBuildId != null && recorded?.projectId === project.id && recorded.buildId === project.liveBuildId;
  const unchanged = live && recorded.inputs === digest;
  if (!unchanged || force) goesOn();
  // The recipe lays a redeploy's image in-process; a deploy that stops as unchanged lays none.
  const recipe: RecipeOrReason =
    unchanged && !force
      ? { reason: 'the build inputs are unchanged' }
      : await buildRecipe(docker, dockerfile, context, (path) => cache.digest(path));
  // A cache that cannot be written costs the next deploy a read of every file, nothing more.
  await cache.save().catch((err: Error) => ctx.detail(`digests   not kept (${err.message})`));
  ctx.trace('recipe made, digests kept');
  const ms = performance.now() - started;
  const liveRecipe = live ? (recorded.recipe ?? null) : null;
  const liveLayers = live ? (recorded.layers ?? null) : null;
  return { dockerfile, context, digest, unchanged, ms, recipe, liveRecipe, liveLayers };
}

/**
 * Records the inputs `buildId` was built from (and its recipe, when it has one), for the folder's
 * next deploy; with the layers this deploy pushed, or, for the same build again (unchanged), the
 * layers recorded for it before.
 */
export async function recordInputs(
  ctx: Lines,
  dir: string,
  projectId: string,
  buildId: string,
  inputs: Pick<ContainerInputs, 'digest' | 'recipe'>,
  pushed?: { image: string; layers: { digest: string; size: number }[] },
): Promise<void> {
  const key = await folderKey(ctx.apiUrl, dir);
  const recipe = 'recipe' in inputs.recipe ? inputs.recipe.recipe : undefined;
  await updateConfig((config) => {
    const before = config.builtFrom[key]?.buildId === buildId ? config.builtFrom[key] : undefined;
    const layers = pushed ? Object.fromEntries(pushed.layers.map((layer) => [layer.digest, layer.size])) : before?.layers;
    const image = pushed?.image ?? before?.image;
    config.builtFrom[key] = {
      projectId,
      buildId,
      inputs: inputs.digest,
      recipe,
      ...(layers ? { layers } : {}),
      ...(image ? { image } : {}),
    };
  });
}
