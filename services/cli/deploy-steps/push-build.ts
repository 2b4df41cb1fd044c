import type { Readable } from 'node:stream';
import type { Client, Project } from '@demo-rooms/contract';
import { ask, type CliContext } from '../context.js';
import { findEngine, engineMessage } from '../local-engine/local-docker.js';
import { Refusal } from '../refusal.js';
import { pushImage } from '../registry/push-image.js';
import { askRegistryToken } from '../registry/registry-token.js';
import { bytes } from '../ui/table.js';
import type { StepLog } from '../ui/step-log.js';
import type { Artefact } from './artefact.js';

/**
 * A container build through the platform's registry (issue 32): the image pushed from the local
 * engine to the project's repository, only the layers the repository lacks, then createBuild by
 * the manifest's digest. Says what travelled and what was skipped.
 */
export async function pushAndBuild(
  ctx: CliContext,
  log: StepLog,
  client: Client,
  apiToken: string,
  project: Project,
  artefact: Artefact,
  tag: string,
  note: string | undefined,
): Promise<string> {
  const account = await ask('reading your workspace', () => client.call('whoami', {}));
  const repository = `${account.workspace.id}/${project.id}`;
  const grant = await askRegistryToken(ctx.apiUrl, apiToken, [`repository:${repository}:push,pull`]);
  if (!grant) throw new Refusal('the platform no longer offers its image registry', 'deploy again: the image is then sent as a bundle');
  const { docker } = await findEngine();
  log.begin('push', `image to ${grant.registry}`);
  let archive: Readable;
  try {
    archive = (await docker.getImage(tag).get()) as Readable;
  } catch (err) {
    throw new Refusal(`the engine could not save the image: ${engineMessage(err)}`);
  }
  const pushed = await pushImage({ registryUrl: grant.registry, repository, token: grant.token }, archive);
  log.done(
    'push',
    `${pushed.sent.layers} layer(s) sent (${bytes(pushed.sent.bytes)}), ${pushed.skipped.layers} skipped (${bytes(pushed.skipped.bytes)} the platform already had)`,
  );
  const build = await ask('creating the build', () =>
    client.call('createBuild', {
      params: { projectId: project.id },
      body: { image: { digest: pushed.manifestDigest }, manifest: artefact.manifest, note, rehearsal: artefact.rehearsal },
    }),
  );
  return build.id;
}
