import type { Db, Sql } from '../core/infra/db.js';
import { repositoryOf } from '../core/infra/registry/registry-token.js';
import { photoPrefix } from './people.sql.js';
import { logoPrefix } from './brand.sql.js';
import { holdSlugsOf } from './projects.sql.js';
import { objectPrefixesOfProject } from './project-objects.sql.js';

// Deleting an account (spec 3 Account, 4.6 deletable/deleteAccount): the rows go in one
// transaction; the stored objects are named in an `account_purges` row written in that same
// transaction and removed by the account-purge job (workers/account-purge), so a crash anywhere
// leaves either everything or a purge still to run, never an orphaned object.

/** An owned workspace that still holds projects or other people: it stands in deletion's way. */
export type DeletionBlocker = { workspaceId: string; name: string; kind: 'personal' | 'team'; projects: number; people: number };

type OwnedWorkspace = DeletionBlocker & { otherOwners: number };

async function ownedWorkspaces(sql: Db, personId: string): Promise<OwnedWorkspace[]> {
  return sql<OwnedWorkspace[]>`
    select w.id as workspace_id, w.name, w.kind,
      (select count(*)::int from projects p where p.workspace_id = w.id and p.deleted_at is null) as projects,
      (select count(*)::int from memberships o where o.workspace_id = w.id and o.person_id <> ${personId}) as people,
      (select count(*)::int from memberships o where o.workspace_id = w.id and o.person_id <> ${personId} and o.role = 'owner') as other_owners
    from memberships m join workspaces w on w.id = m.workspace_id
    where m.person_id = ${personId} and m.role = 'owner' and w.deleted_at is null
    order by w.kind, w.name, w.id`;
}

const blockersIn = (owned: OwnedWorkspace[]): DeletionBlocker[] =>
  owned.filter((w) => w.projects > 0 || w.people > 0).map(({ otherOwners: _, ...w }) => w);

export async function deletionBlockers(sql: Sql, personId: string): Promise<DeletionBlocker[]> {
  return blockersIn(await ownedWorkspaces(sql, personId));
}

export type AccountDeletion =
  | { deleted: true; purgeId: string }
  | { deleted: false; why: 'gone' }
  | { deleted: false; why: 'confirm' }
  | { deleted: false; why: 'blocked'; blockers: DeletionBlocker[] };

/**
 * Deletes the person when `confirm` is their email and nothing blocks it: sign-ins (emailed links,
 * device logins), passkeys and their challenges, sessions, preferences, product feedback, the
 * profile and photo, memberships of others' teams, invitations addressed to them, and every owned
 * workspace with all it held (its deleted projects' rows and bytes too). What they left as a viewer
 * in someone else's room is not theirs here (viewer sessions carry no person) and stays.
 */
export async function deleteAccountRows(sql: Sql, personId: string, confirm: string): Promise<AccountDeletion> {
  return sql.begin(async (tx) => {
    // The person's row is the lock: two deletions (or a deletion and a new team) go one at a time.
    const [person] = await tx<{ email: string }[]>`select email from people where id = ${personId} for update`;
    if (!person) return { deleted: false, why: 'gone' } as const;
    if (confirm.trim().toLowerCase() !== person.email) return { deleted: false, why: 'confirm' } as const;
    // Memberships of owned workspaces are locked too, so nobody joins one while it is judged empty.
    await tx`select 1 from memberships where workspace_id in (
      select workspace_id from memberships where person_id = ${personId} and role = 'owner') for update`;
    const owned = await ownedWorkspaces(tx, personId);
    const blockers = blockersIn(owned);
    if (blockers.length) return { deleted: false, why: 'blocked', blockers } as const;

    const workspaceIds = owned.map((w) => w.workspaceId);
    const projects = await tx<{ id: string }[]>`select id from projects where workspace_id = any(${workspaceIds}::uuid[])`;
    // The photo, each owned workspace's brand logo, and every byte of their projects.
    const prefixes = [photoPrefix(personId), ...workspaceIds.map(logoPrefix)];
    for (const { id } of projects) prefixes.push(...(await objectPrefixesOfProject(tx, id)));
    // Their pushed images' manifests go from the registry too (the builds' rows go with the workspaces).
    const pushed = await tx<{ workspaceId: string; projectId: string; imageManifest: string }[]>`
      select workspace_id, project_id, image_manifest from builds
      where workspace_id = any(${workspaceIds}::uuid[]) and image_manifest is not null and manifest_deleted_at is null`;
    const manifests = pushed.map((b) => `${repositoryOf(b.workspaceId, b.projectId)}@${b.imageManifest}`);
    const [purge] = await tx<{ id: string }[]>`
      insert into account_purges (prefixes, registry_manifests) values (${prefixes}, ${manifests}) returning id`;

    // Their room addresses and public handle stay held from others, as if deleted one by one.
    await holdSlugsOf(tx, workspaceIds);
    await tx`
      insert into released_handles (handle, person_id, released_at)
      select handle, null, now() from people where id = ${personId} and handle is not null
      on conflict (handle) do update set person_id = null, released_at = now()`;
    await tx`delete from workspaces where id = any(${workspaceIds}::uuid[])`;
    await tx`delete from email_sign_ins where email = ${person.email}`;
    await tx`delete from invitations where email = ${person.email}`;
    // Sessions, memberships, passkeys, challenges, preferences and feedback go with the row (on delete cascade).
    await tx`delete from people where id = ${personId}`;
    return { deleted: true, purgeId: purge.id } as const;
  }) as Promise<AccountDeletion>;
}

/** What a purge removes with: object-store prefixes, and pushed manifests (`<repository>@<digest>`). */
export interface PurgeRemovers {
  deletePrefix: (prefix: string) => Promise<number>;
  /** Absent when the platform has no registry: the manifests are then left (none were pushed). */
  deleteManifest?: (repository: string, digest: string) => Promise<void>;
}

/**
 * Runs one purge: every prefix emptied and every pushed manifest deleted, then the row removed,
 * under the row's lock (a second run at once skips it; a run that dies halfway leaves the row for
 * the next). Idempotent: a purge already done finds no row and removes nothing. Answers how many
 * objects and manifests went, or null.
 */
export async function runAccountPurge(
  sql: Sql,
  purgeId: string,
  removers: PurgeRemovers,
): Promise<{ objects: number; manifests: number } | null> {
  return sql.begin(async (tx) => {
    const [row] = await tx<{ prefixes: string[]; registryManifests: string[] }[]>`
      select prefixes, registry_manifests from account_purges where id = ${purgeId} for update skip locked`;
    if (!row) return null;
    let objects = 0;
    for (const prefix of row.prefixes) objects += await removers.deletePrefix(prefix);
    let manifests = 0;
    for (const ref of removers.deleteManifest ? row.registryManifests : []) {
      const at = ref.lastIndexOf('@');
      await removers.deleteManifest!(ref.slice(0, at), ref.slice(at + 1));
      manifests += 1;
    }
    await tx`delete from account_purges where id = ${purgeId}`;
    return { objects, manifests };
  }) as Promise<{ objects: number; manifests: number } | null>;
}

/** Purges whose job has not finished after `minutes` (its enqueue was lost, or it kept failing). */
export async function stalePurges(sql: Sql, minutes: number): Promise<string[]> {
  const rows = await sql<{ id: string }[]>`
    select id from account_purges where created_at < now() - make_interval(mins => ${minutes}) order by created_at limit 100`;
  return rows.map((r) => r.id);
}
