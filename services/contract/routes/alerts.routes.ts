import { z } from 'zod';
import { AlertList, AlertSettings } from '../resources/alert.js';
import { route } from '../route.js';

// Issue 34: the signed-in person's alerts in the active workspace and how they hear of them. The
// spec leaves these "not shown"; docs/decisions/product-events-and-alerts.md.

/** An alert's id: a decimal string (the list's `id`). */
const AlertId = z.string().regex(/^\d{1,18}$/, 'an alert id');

export const alertRoutes = {
  listAlerts: route({
    operation: 'listAlerts',
    method: 'GET',
    path: '/api/me/alerts',
    status: 200,
    tag: 'alerts',
    summary: 'My newest 100 alerts in the active workspace, newest first, with the count of all unread ones.',
    reply: AlertList,
  }),
  markAlertsRead: route({
    operation: 'markAlertsRead',
    method: 'POST',
    path: '/api/me/alerts/read',
    status: 200,
    tag: 'alerts',
    summary: 'Marks 1 to 50 of my alerts read; an id that is not one of mine in the active workspace answers 404 and marks nothing.',
    body: z.strictObject({ ids: z.array(AlertId).min(1).max(50) }),
    reply: z.object({ unread: z.number().int().nonnegative() }),
    errors: [404],
  }),
  alertSettings: route({
    operation: 'alertSettings',
    method: 'GET',
    path: '/api/me/alert-settings',
    status: 200,
    tag: 'alerts',
    summary: 'How I hear of each alert kind in the active workspace: instant mail, the daily digest, or off (the in-app list only).',
    reply: AlertSettings,
  }),
  setAlertSettings: route({
    operation: 'setAlertSettings',
    // POST, as every JSON change here (PUTs carry raw bytes only).
    method: 'POST',
    path: '/api/me/alert-settings',
    status: 200,
    tag: 'alerts',
    summary: 'Sets how I hear of the alert kinds given (the others stay); a bad kind or mode answers 400 and changes nothing.',
    body: AlertSettings.partial(),
    reply: AlertSettings,
  }),
};
