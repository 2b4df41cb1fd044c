import type { Db } from '../core/infra/db.js';

// Reports about a project, from any signed-in person (spec 4.5; migrations/00014), for the
// operator's review.

export type ReportReason = 'phishing' | 'impersonation' | 'abuse' | 'illegal' | 'spam' | 'other';

export async function insertReport(
  tx: Db,
  r: { projectId: string; reporterId: string; reason: ReportReason; detail: string | null },
): Promise<string> {
  const [row] = await tx<{ id: string }[]>`
    insert into reports (project_id, reporter_id, reason, detail) values (${r.projectId}, ${r.reporterId}, ${r.reason}, ${r.detail}) returning id`;
  return row.id;
}

export function openReports(sql: Db) {
  return sql<{ id: string; slug: string; reason: ReportReason; detail: string | null; createdAt: Date }[]>`
    select r.id, p.slug, r.reason, r.detail, r.created_at from reports r join projects p on p.id = r.project_id
    where r.handled_at is null order by r.created_at`;
}

export async function markReportHandled(sql: Db, reportId: string): Promise<boolean> {
  return (await sql`update reports set handled_at = now() where id = ${reportId} and handled_at is null returning id`).length > 0;
}
