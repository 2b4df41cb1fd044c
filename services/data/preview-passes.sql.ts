import type { Config } from '../core/infra/config.js';
import type { Sql } from '../core/infra/db.js';
import { hashSecret, newSecret } from '../core/infra/ids.js';
import { projectIn } from './projects.sql.js';

type Actor = { workspaceId: string; personId: string };

/** How long a preview pass lives, in seconds (spec 8). */
export const previewPassSeconds = 120;

/**
 * previewPass: a one-time address that opens the room as a viewer sees it, marked preview and
 * recording nothing. Stored only as the key's hash; the room spends it on arrival.
 */
export async function createPreviewPass(sql: Sql, config: Pick<Config, 'publicUrl'>, actor: Actor, projectId: string) {
  const project = await projectIn(sql, actor.workspaceId, projectId);
  const key = newSecret('pp_pre', 24);
  await sql`
    insert into preview_passes (key_hash, workspace_id, project_id, person_id, expires_at)
    values (${hashSecret(key)}, ${project.workspaceId}, ${project.id}, ${actor.personId}, now() + make_interval(secs => ${previewPassSeconds}))`;
  return { url: `${config.publicUrl}/preview/${key}` };
}

/**
 * For the room: spends the preview pass `key` and returns its project's id; null when the key is
 * unknown, already spent, past its 120 seconds, or its project deleted. One statement, so two
 * racing arrivals cannot both spend it.
 */
export async function spendPreviewPass(sql: Sql, key: string): Promise<string | null> {
  return (await spendPass(sql, key, 'preview'))?.projectId ?? null;
}

async function spendPass(
  sql: Sql,
  key: string,
  kind: 'preview' | 'community',
): Promise<{ projectId: string; personId: string | null } | null> {
  if (!key || key.length > 200) return null;
  const [row] = await sql<{ projectId: string; personId: string | null }[]>`
    update preview_passes pp set spent_at = now()
    from projects p
    where pp.key_hash = ${hashSecret(key)} and pp.kind = ${kind} and pp.spent_at is null and pp.expires_at > now()
      and p.id = pp.project_id and p.deleted_at is null
    returning pp.project_id, pp.person_id`;
  return row ?? null;
}

/**
 * communityPass: a one-time address back into a listed project's public room for a signed-in
 * person, who is then recorded by their name. Any signed-in person may have one.
 */
export async function createCommunityPass(
  sql: Sql,
  config: Pick<Config, 'publicUrl'>,
  personId: string,
  project: { id: string; workspaceId: string; slug: string },
) {
  const key = newSecret('pp_com', 24);
  await sql`
    insert into preview_passes (key_hash, workspace_id, project_id, person_id, expires_at, kind)
    values (${hashSecret(key)}, ${project.workspaceId}, ${project.id}, ${personId}, now() + make_interval(secs => ${previewPassSeconds}), 'community')`;
  return { url: `${config.publicUrl}/p/${project.slug}?pass=${key}` };
}

/** Spends a community pass of `projectId`; answers whose it was, or null. */
export async function spendCommunityPass(sql: Sql, key: string, projectId: string): Promise<string | null> {
  const spent = await spendPass(sql, key, 'community');
  return spent && spent.projectId === projectId ? spent.personId : null;
}

/** Preview passes expired or spent over a day ago; the number removed. */
export async function deleteSpentPreviewPasses(sql: Sql): Promise<number> {
  const gone = await sql`
    delete from preview_passes where expires_at < now() - interval '1 day' or spent_at < now() - interval '1 day'`;
  return gone.count;
}
