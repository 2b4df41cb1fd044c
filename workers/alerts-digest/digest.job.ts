import { alertHref, alertSummary } from '../../services/core/rules/alert-words.js';
import { digestsDue, markDigested } from '../../services/data/alerts.sql.js';
import type { WorkerDeps } from '../worker-deps.js';
import { renderAlertMail } from './alert-mail.js';
import { mailerOf } from './alerts.consumer.js';

/** The schedule the workers register: every day at 07:00 UTC, the alerts since the last digest. */
export const digestSchedule = { id: 'daily-alerts-digest', pattern: '0 7 * * *' } as const;

/** Alerts one run takes (a person's alerts beyond it go in the next run's mail). */
const digestBatch = 2000;
/** Lines one digest mail lists; the rest are counted and linked to the in-app list. */
const digestLines = 50;

/**
 * alerts.digest: each person who chose the digest for a kind gets one mail of the alerts waiting
 * for them, and those alerts are marked mailed in the same transaction (a failed mail leaves them
 * for the next run). `workspaceIds` narrows the run to those workspaces (tests).
 */
export async function sendDigests(deps: WorkerDeps, opts: { workspaceIds?: string[] } = {}) {
  const mailer = mailerOf(deps);
  let mails = 0;
  await deps.sql.begin(async (tx) => {
    for (const due of await digestsDue(tx, digestBatch, opts.workspaceIds)) {
      const list = new URL('/alerts', deps.config.publicUrl).href;
      const items = due.alerts.slice(0, digestLines).map((a) => ({
        text: `${a.projectName}: ${alertSummary(a.event)}`,
        href: new URL(alertHref(a.event), deps.config.publicUrl).href,
      }));
      const more = due.alerts.length - items.length;
      const mail = await renderAlertMail({
        subject: `Your demo rooms today: ${due.alerts.length} alert${due.alerts.length === 1 ? '' : 's'}`,
        heading: 'What your viewers did',
        items,
        button: { text: more > 0 ? `See all (${more} more)` : 'See all alerts', href: list },
        footer: 'You get this daily mail because you chose the digest for alerts: change it on your Account page.',
      });
      await mailer.send({ to: due.email, ...mail });
      await markDigested(
        tx,
        due.alerts.map((a) => a.id),
      );
      mails++;
    }
  });
  if (mails) deps.log.info({ mails }, 'alert digests sent');
  return { mails };
}

/** The job: every waiting digest. */
export const alertsDigest = (deps: WorkerDeps) => sendDigests(deps);
