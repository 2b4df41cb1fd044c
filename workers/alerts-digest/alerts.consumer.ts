import { isViewerEvent, type ViewerEvent } from '@demo-rooms/contract';
import { alertHref, alertSummary } from '../../services/core/rules/alert-words.js';
import { createMailer, type Mailer } from '../../services/core/infra/mailer.js';
import { addAlert, isAlertKind, liveProjectNames, recipientsOf, settleAlertMail, takeMailCap } from '../../services/data/alerts.sql.js';
import type { Consumer, ConsumerDeps } from '../events-fanout/consumer.js';
import type { WorkerDeps } from '../worker-deps.js';
import { renderAlertMail } from './alert-mail.js';

// The `alerts` consumer of the product events (docs/decisions/product-events-and-alerts.md):
// each alert-worthy event (a first open, an answer, a comment) becomes an in-app alert for every
// member of the workspace, and a mail at once for those who chose `instant`, unless the cap
// (one mail per person, kind and link an hour, alert_mail_caps) already went. Everything it
// writes is in the fan-out's transaction: a failed mail rolls the batch back to be handled again.

/** The mailer of the worker (main.ts gives one; tests hand theirs, or it is made from the config). */
export const mailerOf = (deps: WorkerDeps): Mailer =>
  deps.mailer ?? createMailer({ smtpUrl: deps.config.SMTP_URL, from: deps.config.MAIL_FROM, dataDir: deps.config.DATA_DIR, log: deps.log });

export const alertsConsumer: Consumer = {
  name: 'alerts',
  async handle(deps, events) {
    const worthy = events.filter(isViewerEvent).filter((e) => isAlertKind(e.kind));
    if (!worthy.length) return;
    const projects = await liveProjectNames(deps.tx, [...new Set(worthy.map((e) => e.projectId))]);
    const mailer = mailerOf(deps);
    for (const event of worthy) {
      const projectName = projects.get(event.projectId);
      if (projectName !== undefined) await alertEveryone(deps, mailer, event, projectName);
    }
  },
};

async function alertEveryone(deps: ConsumerDeps, mailer: Mailer, event: ViewerEvent, projectName: string) {
  if (!isAlertKind(event.kind)) return;
  for (const person of await recipientsOf(deps.tx, event.workspaceId, event.kind)) {
    const alertId = await addAlert(deps.tx, {
      workspaceId: event.workspaceId,
      personId: person.personId,
      eventId: event.id,
      mail: person.mode,
    });
    if (!alertId || person.mode !== 'instant') continue;
    if (!(await takeMailCap(deps.tx, person.personId, event.linkId ?? event.projectId, event.kind))) {
      await settleAlertMail(deps.tx, alertId, 'capped');
      continue;
    }
    const href = new URL(alertHref(event), deps.config.publicUrl).href;
    const summary = alertSummary(event);
    const mail = await renderAlertMail({
      subject: `${projectName}: ${summary}`.slice(0, 200),
      heading: projectName,
      items: [{ text: summary, href }],
      button: { text: 'Open in Demo Rooms', href },
      footer: 'You get this mail because alerts are on for you in this workspace: change them on your Account page.',
    });
    await mailer.send({ to: person.email, ...mail });
    await settleAlertMail(deps.tx, alertId, 'mailed');
  }
}
