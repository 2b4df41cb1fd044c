import type { Sql } from '../../core/infra/db.js';
import { markWelcomeSeen, preferencesOf, setFeedbackTabFolded, type PreferencesRow } from '../../data/preferences.sql.js';

// Own preferences (spec 2.10 Preferences, 4.6): the defaults until one is set.

const view = (p: PreferencesRow) => ({ welcomeSeenAt: p.welcomeSeenAt?.toISOString() ?? null, feedbackTabFolded: p.feedbackTabFolded });

export const myPreferences = async (sql: Sql, personId: string) => view(await preferencesOf(sql, personId));
export const welcomeSeen = async (sql: Sql, personId: string) => view(await markWelcomeSeen(sql, personId));
export const foldFeedbackTab = async (sql: Sql, personId: string, folded: boolean) =>
  view(await setFeedbackTabFolded(sql, personId, folded));
