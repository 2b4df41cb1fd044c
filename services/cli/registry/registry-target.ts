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
  const [account, projects] = await Promise.all([asked.account ?? readWorkspace(client), asked.projects ?? listProjects(client)]);
  const repository = `${account.workspace.id}/${project.id}`;
  const siblings = projects
    .filter((other) => other.id !== project.id && other.liveBuildId)
    .sort((a, b) => b.createdAt.localeCompare(a.createdAt))
    .slice(0, MOUNT_SOURCES)
    .map((other) => `${account.workspace.id}/${other.id}`);
  const grant = await askRegistryToken(ctx.apiUrl, apiToken, [
    `repository:${repository}:push,pull`,
    ...siblings.map((sibling) => `repository:${sibling}:pull`),
  ]);
  return grant && { registryUrl: grant.registry, repository, token: grant.token, mountFrom: siblings, askedAt: performance.now() };
}
