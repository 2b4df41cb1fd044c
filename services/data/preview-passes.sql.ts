import type { Config } from '../core/config.js';
import type { Sql } from '../core/db.js';
import { hashSecret, newSecret } from '../core/ids.js';
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
  if (!key || key.length > 200) return null;
  const [row] = await sql<{ projectId: string }[]>`
    update preview_passes pp set spent_at = now()
    from projects p
    where pp.key_hash = ${hashSecret(key)} and pp.spent_at is null and pp.expires_at > now()
      and p.id = pp.project_id and p.deleted_at is null
    returning pp.project_id`;
  return row?.projectId ?? null;
}
