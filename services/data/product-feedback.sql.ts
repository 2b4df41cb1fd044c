import type { Sql } from '../core/infra/db.js';

/** Files a note on the product under the person and the workspace they have active. */
export async function fileProductFeedback(
  sql: Sql,
  f: {
    personId: string;
    workspaceId: string;
    body: string;
    page?: string;
    appVersion?: string;
  },
): Promise<{ id: string; createdAt: Date }> {
  const [row] = await sql<{ id: string; createdAt: Date }[]>`
    insert into product_feedback (person_id, workspace_id, body, page, app_version)
    values (${f.personId}, ${f.workspaceId}, ${f.body}, ${f.page ?? null}, ${f.appVersion ?? null})
    returning id, created_at`;
  return row;
}

export interface ProductFeedbackRow {
  id: string;
  createdAt: Date;
  email: string;
  workspaceName: string | null;
  body: string;
  page: string | null;
  appVersion: string | null;
}

/** The newest notes first, with who sent them and from which workspace: the operator's reading. */
export async function latestProductFeedback(sql: Sql, limit: number): Promise<ProductFeedbackRow[]> {
  return sql<ProductFeedbackRow[]>`
    select f.id, f.created_at, p.email, w.name as workspace_name, f.body, f.page, f.app_version
    from product_feedback f join people p on p.id = f.person_id left join workspaces w on w.id = f.workspace_id
    order by f.created_at desc, f.id limit ${limit}`;
}
