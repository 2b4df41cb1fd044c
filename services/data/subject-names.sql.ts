import type { Db } from '../core/infra/db.js';

// What the builder called the things a room's events name by id (issue 29, item 7): an app's
// name, a room page's title (together: the keys of `time`), a story step's title and a
// scenario's label. Taken from every build of the project, the newest build's word first, so an
// id only an older build had still reads as a name; a page that was removed is simply absent.

export interface SubjectNames {
  /** App id or room page id → the app's name or the page's title. */
  time: Record<string, string>;
  /** Story step id → its title. */
  steps: Record<string, string>;
  /** Scenario id → its label. */
  scenarios: Record<string, string>;
}

export const noNames = (): SubjectNames => ({ time: {}, steps: {}, scenarios: {} });

/** Each project's names, by project id (a project without builds or pages answers empty maps). */
export async function subjectNames(sql: Db, projectIds: string[]): Promise<Map<string, SubjectNames>> {
  const out = new Map<string, SubjectNames>(projectIds.map((id) => [id, noNames()]));
  if (!projectIds.length) return out;
  const rows = await sql<{ projectId: string; tally: keyof SubjectNames; id: string; name: string }[]>`
    with b as (
      select project_id, manifest, created_at from builds where project_id = any(${projectIds}::uuid[])
    ), named as (
      select project_id, 'time' as tally, e->>'id' as id, e->>'name' as name, created_at
      from b, jsonb_array_elements(case when jsonb_typeof(manifest->'apps') = 'array' then manifest->'apps' else '[]' end) e
      union all
      select project_id, 'steps', e->>'id', e->>'title', created_at
      from b, jsonb_array_elements(case when jsonb_typeof(manifest->'story') = 'array' then manifest->'story' else '[]' end) e
      union all
      select project_id, 'scenarios', e->>'id', e->>'label', created_at
      from b, jsonb_array_elements(case when jsonb_typeof(manifest->'controls'->'scenarios') = 'array' then manifest->'controls'->'scenarios' else '[]' end) e
      union all
      select project_id, 'time', id::text, title, 'infinity'::timestamptz from room_pages where project_id = any(${projectIds}::uuid[])
    )
    select distinct on (project_id, tally, id) project_id, tally, id, name
    from named where id is not null and name is not null
    order by project_id, tally, id, created_at desc`;
  for (const r of rows) out.get(r.projectId)![r.tally][r.id] = r.name;
  return out;
}

/** One project's names. */
export async function namesOf(sql: Db, projectId: string): Promise<SubjectNames> {
  return (await subjectNames(sql, [projectId])).get(projectId)!;
}
