import type { Sql } from '../core/infra/db.js';

export interface PreferencesRow {
  welcomeSeenAt: Date | null;
  feedbackTabFolded: boolean;
}

const defaults: PreferencesRow = { welcomeSeenAt: null, feedbackTabFolded: false };

/** The person's preferences; the defaults when they never set one. */
export async function preferencesOf(sql: Sql, personId: string): Promise<PreferencesRow> {
  const [row] = await sql<PreferencesRow[]>`
    select welcome_seen_at, feedback_tab_folded from preferences where person_id = ${personId}`;
  return row ?? defaults;
}

/** Records the first time the welcome was seen; later calls keep that first time. */
export async function markWelcomeSeen(sql: Sql, personId: string): Promise<PreferencesRow> {
  const [row] = await sql<PreferencesRow[]>`
    insert into preferences (person_id, welcome_seen_at) values (${personId}, now())
    on conflict (person_id) do update set welcome_seen_at = coalesce(preferences.welcome_seen_at, excluded.welcome_seen_at)
    returning welcome_seen_at, feedback_tab_folded`;
  return row;
}

export async function setFeedbackTabFolded(sql: Sql, personId: string, folded: boolean): Promise<PreferencesRow> {
  const [row] = await sql<PreferencesRow[]>`
    insert into preferences (person_id, feedback_tab_folded) values (${personId}, ${folded})
    on conflict (person_id) do update set feedback_tab_folded = excluded.feedback_tab_folded
    returning welcome_seen_at, feedback_tab_folded`;
  return row;
}
