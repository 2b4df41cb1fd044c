import { maxSentManifestChars, type Client, type Project } from '@demo-rooms/contract';
import { ask, type CliContext } from '../context.js';
import { Refusal } from '../refusal.js';
import { sendImage, type PushResult } from '../registry/push-image.js';
import type { ReadImage } from '../registry/read-image.js';
import { registryTarget, type AskedTarget } from '../registry/registry-target.js';
import { bytes } from '../ui/table.js';
import type { StepLog } from '../ui/step-log.js';
import type { Artefact } from './artefact.js';

/**
 * A registry token asked for this long ago (ms) is used again for the push: the shortest a
 * platform issues lives 30 s (REGISTRY_TOKEN_SECONDS), and the registry checks it as each request
 * starts. An older one is asked for again.
 */
const TOKEN_REUSE_MS = 20_000;

/**
 * A container build through the platform's registry (issue 32): the image, read from the local
 * engine once for its scan, sent to the project's repository (only the layers the repository
 * lacks: they waited on disk), then createBuild by the manifest's digest. Says what travelled and
 * what was skipped.
 */
export async function pushAndBuild(
  ctx: CliContext,
  log: StepLog,
  client: Client,
  apiToken: string,
  project: Project,
  artefact: Artefact,
  image: ReadImage,
  note: string | undefined,
  earlier: AskedTarget | null = null,
): Promise<string> {
  // An in-process image went up beside its rehearsal (prepare-container.ts): createBuild is what is left.
  if (artefact.image?.pushed) {
    const pushed = await artefact.image.pushed;
    log.done('push', `${pushLine(pushed)}; sent beside the rehearsal`);
    return createBuild(client, project, artefact, pushed, note);
  }
  const fresh = earlier !== null && performance.now() - earlier.askedAt < TOKEN_REUSE_MS;
  const target = fresh ? earlier : await registryTarget(ctx, client, apiToken, project);
  if (!target) throw new Refusal('the platform no longer offers its image registry', 'deploy again: the image is then sent as a bundle');
  log.begin('push', `image to ${target.registryUrl}`);
  if (!fresh) ctx.trace('registry token asked again');
  const pushed = await sendImage(target, image);
  log.done('push', pushLine(pushed));
  return createBuild(client, project, artefact, pushed, note);
}

/** createBuild by the pushed manifest's digest; answers the new build's id. */
async function createBuild(client: Client, project: Project, artefact: Artefact, pushed: PushResult, note: string | undefined) {
  const build = await ask('creating the build', () =>
    client.call('createBuild', {
      params: { projectId: project.id },
      body: { image: imageOf(pushed), manifest: artefact.manifest, note, rehearsal: artefact.rehearsal },
    }),
  );
  return build.id;
}

/** What a push sent and what it did not have to: `sent 3 KB in 1 new layer, 12 layers already there (167.7 MB)`. */
export function pushLine(pushed: PushResult): string {
  const layers = (n: number) => `${n} ${n === 1 ? 'layer' : 'layers'}`;
  const parts = [`sent ${bytes(pushed.sent.bytes)} in ${pushed.sent.layers} new ${pushed.sent.layers === 1 ? 'layer' : 'layers'}`];
  if (pushed.mounted.layers > 0)
    parts.push(`${layers(pushed.mounted.layers)} (${bytes(pushed.mounted.bytes)}) taken from your workspace's other projects, not sent`);
  parts.push(`${layers(pushed.skipped.layers)} already there (${bytes(pushed.skipped.bytes)})`);
  return parts.join(', ');
}

/**
 * createBuild's `image`: the manifest's digest, and its text when the contract takes it (the
 * platform then reads it from the request, checked against the digest, not back from the registry).
 */
function imageOf(pushed: PushResult): { digest: string; manifest?: string } {
  const sendText = pushed.manifestText.length <= maxSentManifestChars;
  return { digest: pushed.manifestDigest, ...(sendText ? { manifest: pushed.manifestText } : {}) };
}
