import type { Account, Client, Project } from '@demo-rooms/contract';
import { readConfig, updateConfig } from '../config/config-file.js';
import { ask, type CliContext } from '../context.js';
import { Refusal } from '../refusal.js';
import { manifestOf, readManifestFile } from './read-manifest.js';
import { slugFromName } from './slug.js';
import { folderKey } from './folder-key.js';

/** Remembers which project a folder deployed to, so `--project` need not be repeated. */
export async function rememberProject(ctx: CliContext, dir: string, slug: string): Promise<void> {
  const key = await folderKey(ctx.apiUrl, dir);
  await updateConfig((config) => {
    config.projects[key] = slug;
  });
}

/**
 * The project a command is about: --project, else the one this folder last deployed to, else the
 * slug made from pitch.json's name (what the first deploy creates).
 */
export async function projectSlugFor(ctx: CliContext, flag: string | undefined, dir = '.'): Promise<string> {
  if (flag) return flag;
  const remembered = (await readConfig()).projects[await folderKey(ctx.apiUrl, dir)];
  if (remembered) return remembered;
  const file = await readManifestFile(dir).catch((err) => {
    if (err instanceof Refusal)
      throw new Refusal('which project? there is no pitch.json here', "give --project SLUG, or run the command in the project's folder");
    throw err;
  });
  return slugFromName(manifestOf(file).name);
}

/** The workspace's project with that slug, or null. The API lists projects whole (spec 1.8). */
export async function findProject(client: Client, slug: string, listed = listProjects(client)): Promise<Project | null> {
  return (await listed).find((project) => project.slug === slug) ?? null;
}

/** The workspace's projects (a deploy asks once, for the project and for its registry token's scopes). */
export function listProjects(client: Client): Promise<Project[]> {
  return ask('listing projects', () => client.call('listProjects'));
}

/** The account and its workspace (a container deploy asks once, beside the projects: its repository is named by the workspace's id). */
export function readWorkspace(client: Client): Promise<Account> {
  return ask('reading your workspace', () => client.call('whoami', {}));
}

/** The project of --project or of this folder; a refusal naming the slug when there is none. */
export async function requireProject(ctx: CliContext, client: Client, flag: string | undefined): Promise<Project> {
  const slug = await projectSlugFor(ctx, flag);
  const project = await findProject(client, slug);
  if (!project)
    throw new Refusal(
      `no project ${slug} in your workspace`,
      flag ? '`pitch projects ls` lists them' : 'deploy it first with `pitch deploy`, or give --project SLUG',
    );
  return project;
}
