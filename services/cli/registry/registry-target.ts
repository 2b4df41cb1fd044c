import type { Account, Client, Project } from '@demo-rooms/contract';
import type { CliContext } from '../context.js';
import { listProjects, readWorkspace } from '../project/find-project.js';
import type { PushTarget } from './push-image.js';
import { askRegistryToken } from './registry-token.js';

// The project's repository and a token for it, asked apart from the push's code (push-build.ts):
// a redeploy asks it first thing past the unchanged check, and its image is laid as soon as it
// comes, while the scan's modules load; importing the push with it made it wait for them.

/** A push target and when its token was asked for (performance.now(), ms). */
export type AskedTarget = PushTarget & { askedAt: number };

/**
 * Repositories a layer may be mounted from besides the project's own: its workspace's other
 * projects with a live build, the newest first (the platform grants at most 4 scopes in one token,
 * the project's own among them). Only the workspace's: the api grants pull on no other's.
 */
const MOUNT_SOURCES = 3;

/** The account and the projects when already asked (a deploy asks them beside its plan check): the token is then one round trip. */
export interface RegistryAsked {
  account?: Promise<Account>;
  projects?: Promise<Project[]>;
}

/**
 * The project's repository in the platform's registry, with a token to push and pull it and to
 * pull (so mount from) the workspace's other projects' repositories; null when the platform has
 * no registry.
 */
export async function registryTarget(
  ctx: CliContext,
  client: Client,
  apiToken: string,
  project: Project,
  asked: RegistryAsked = {},
): Promise<AskedTarget | null> {
  const { workspaceId, siblings } = await mountSources(client, project.id, asked);
  const repository = `${workspaceId}/${project.id}`;
  const grant = await askRegistryToken(ctx.apiUrl, apiToken, [
    `repository:${repository}:push,pull`,
    ...siblings.map((sibling) => `repository:${sibling}:pull`),
  ]);
  return grant && { registryUrl: grant.registry, repository, token: grant.token, mountFrom: siblings, askedAt: performance.now() };
}

/** The workspace's other repositories a first deploy may find its layers in, with a token to read them. */
export interface WorkspaceLayers {
  registryUrl: string;
  token: string;
  repositories: string[];
}

/**
 * A first deploy's registry answer (no project yet, so no repository of its own): whether the
 * platform has a registry, and the repositories of the workspace's other projects, readable with
 * the token, for the layers the engine then need not read out (mounted from there at the push).
 */
export async function workspaceLayers(
  ctx: CliContext,
  client: Client,
  apiToken: string,
  asked: RegistryAsked = {},
): Promise<{ pushes: boolean; elsewhere: WorkspaceLayers | null }> {
  const { siblings } = await mountSources(client, null, asked);
  const grant = await askRegistryToken(
    ctx.apiUrl,
    apiToken,
    siblings.map((sibling) => `repository:${sibling}:pull`),
  );
  if (!grant) return { pushes: false, elsewhere: null };
  return { pushes: true, elsewhere: siblings.length ? { registryUrl: grant.registry, token: grant.token, repositories: siblings } : null };
}

/** The workspace, and its other projects' repositories with a live build, the newest first, at most MOUNT_SOURCES. */
async function mountSources(client: Client, projectId: string | null, asked: RegistryAsked) {
  const [account, projects] = await Promise.all([asked.account ?? readWorkspace(client), asked.projects ?? listProjects(client)]);
  const siblings = projects
    .filter((other) => other.id !== projectId && other.liveBuildId)
    .sort((a, b) => b.createdAt.localeCompare(a.createdAt))
    .slice(0, MOUNT_SOURCES)
    .map((other) => `${account.workspace.id}/${other.id}`);
  return { workspaceId: account.workspace.id, siblings };
}
