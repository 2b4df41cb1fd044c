import type { Alert } from '@demo-rooms/contract';
import { alertHref, alertSummary } from '../../core/rules/alert-words.js';
import { alertSettingsOf, listAlerts, markAlertsRead, putAlertSettings, type AlertRow } from '../../data/alerts.sql.js';
import type { HandlerGroup } from '../routing/handler.js';

// The signed-in person's alerts in the active workspace (issue 34): the list with its unread
// count, marking read, and their settings. Everything is scoped by workspace and person: another
// person's alert id answers 404 like a missing one.

/** Alerts one list shows (the newest). */
const listed = 100;

const view = (a: AlertRow): Alert => ({
  id: a.id,
  read: a.readAt !== null,
  createdAt: a.createdAt.toISOString(),
  projectName: a.projectName,
  summary: alertSummary(a.event),
  href: alertHref(a.event),
  event: a.event,
});

export const alertHandlers = {
  listAlerts: async ({ deps, auth }) => {
    const { alerts, unread } = await listAlerts(deps.sql, auth.workspaceId, auth.personId, { limit: listed });
    return { alerts: alerts.map(view), unread };
  },
  markAlertsRead: async ({ deps, auth, body }) => {
    await markAlertsRead(deps.sql, auth.workspaceId, auth.personId, body.ids);
    const { unread } = await listAlerts(deps.sql, auth.workspaceId, auth.personId, { limit: 1 });
    return { unread };
  },
  alertSettings: ({ deps, auth }) => alertSettingsOf(deps.sql, auth.workspaceId, auth.personId),
  setAlertSettings: async ({ deps, auth, body }) => {
    await putAlertSettings(deps.sql, auth.workspaceId, auth.personId, body);
    return alertSettingsOf(deps.sql, auth.workspaceId, auth.personId);
  },
} satisfies HandlerGroup;
