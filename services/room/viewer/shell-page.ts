import type { Sql } from '../../core/infra/db.js';
import type { Manifest } from '@demo-rooms/contract/manifest';
import type { ShellData } from '@demo-rooms/contract';
import type { ProjectRow } from '../../data/projects.sql.js';
import { liveManifestOf } from '../../data/builds.sql.js';
import { appOrderOf } from '../../data/rooms.sql.js';
import { effectiveAppOrder } from '../../data/app-order.js';
import { pagesOf } from '../../data/room-pages.sql.js';
import { linkCompanyOf, linkSenderName } from '../../data/links.sql.js';
import { personalises } from '../personal.js';
import type { RoomSessionRow } from '../../data/room-sessions.sql.js';
import { workspaceLook } from '../../data/brand-look.js';
import { escapeHtml, roomDocument } from '../html.js';
import { brandMark, lookStyle, madeWithBadge } from './room-look.js';
import { commentButton, commentsPanel, emailDialog, nextButton, nextPanel } from './voice-panels.js';
import { voiceOf } from './voice-data.js';

// The room shell: the project's apps as tabs, each in its device frame, then its pages. The apps
// themselves are framed from the content origin after the shell has a grant; nothing of the
// build runs on this origin.

type ManifestApp = Manifest['apps'][number];

/**
 * What an app frame may do: everything an app needs, but never navigate the room's own tab (no
 * allow-top-navigation), and its popups stay sandboxed too (no allow-popups-to-escape-sandbox: an
 * escaped popup could navigate its opener's top, the room). allow-same-origin is safe only because
 * app content always comes from another origin than the shell's (origins.ts: `{slug}` hosts).
 */
const appSandbox = 'allow-scripts allow-same-origin allow-forms allow-popups allow-modals allow-downloads';

/** The manifest's apps in the room's order (orderApps), with the default app opened first. */
export function appsInOrder(apps: ManifestApp[], appOrder: string[] | null) {
  const order =
    effectiveAppOrder(
      appOrder,
      apps.map((a) => a.id),
    ) ?? apps.map((a) => a.id);
  const byId = new Map(apps.map((a) => [a.id, a]));
  const ordered = order.map((id) => byId.get(id)).filter((a): a is ManifestApp => Boolean(a));
  return { ordered, opened: (apps.find((a) => a.default) ?? ordered[0])?.id ?? null };
}

/** The service the made-with badge names and links to. */
export type ServiceMark = { name: string; url: string };

/** What the shell page is drawn with beyond its session: the room's settings. */
export type ShellSettings = { screenshotMaxBytes: number; flushMs: number; service: ServiceMark };

export async function shellPage(
  sql: Sql,
  project: ProjectRow,
  session: RoomSessionRow,
  suggestedName: string | null,
  settings: ShellSettings,
): Promise<string> {
  const build = await liveManifestOf(sql, project);
  const look = await workspaceLook(sql, project.workspaceId);
  const style = lookStyle(look.drawn.look);
  const pages = await pagesOf(sql, project.id);
  const { ordered, opened } = appsInOrder(build?.manifest.apps ?? [], await appOrderOf(sql, project.id));
  const sender = session.linkId ? await linkSenderName(sql, session.linkId) : null;
  // A build that personalises is told the viewer's company too: the prompt asks for it (optional).
  const personalised = personalises(build?.manifest);
  const suggestedCompany = personalised && session.linkId ? await linkCompanyOf(sql, session.linkId) : null;

  const data: ShellData = {
    sessionId: session.id,
    preview: session.preview,
    kind: build?.kind ?? null,
    apps: ordered.map((a) => ({ id: a.id, name: a.name, device: a.device, path: a.path })),
    pages: pages.map((p) => ({ id: p.id, title: p.title })),
    opened: opened ?? pages[0]?.id ?? null,
    // A public room's visitor (no link, no preview) is recorded without a name unless they give one.
    ask: {
      name: !session.viewerName && !isPublicVisit(session),
      email: project.requireEmail && !session.viewerEmail,
      suggestedName,
      company: personalised,
      suggestedCompany,
    },
    personalised,
    sender,
    story: (build?.manifest.story ?? []).map((st) => ({
      id: st.id,
      title: st.title,
      say: st.say,
      app: st.app,
      path: st.path ?? null,
      device: st.device ?? null,
      point: st.point ?? null,
      runs: Boolean(st.run?.length),
    })),
    controls: {
      reset: Boolean(build?.manifest.controls?.reset),
      scenarios: (build?.manifest.controls?.scenarios ?? []).map((c) => ({ id: c.id, label: c.label, description: c.description ?? null })),
    },
    voice: await voiceOf(sql, project, session, settings.screenshotMaxBytes),
    flushMs: settings.flushMs,
  };

  const tabs = [...ordered.map((a) => tab(a.id, a.name, 'app')), ...pages.map((p) => tab(p.id, p.title, 'page'))].join('');
  const appPanels = ordered
    .map(
      (a) => `
<section class="panel" id="panel-${a.id}" role="tabpanel" aria-labelledby="tab-${a.id}" hidden>
  <div class="frame frame-${a.device}" data-device="${a.device}"><iframe title="${escapeHtml(a.name)}" data-app="${a.id}" sandbox="${appSandbox}" allow="clipboard-write" referrerpolicy="no-referrer"></iframe></div>
  <div class="state" data-state-for="${a.id}" role="status" hidden><h2></h2><p></p></div>
  <div class="state progress" data-progress-for="${a.id}" role="status" hidden><h2></h2><p class="progress-step"></p><p class="progress-time"></p></div>
</section>`,
    )
    .join('');
  // Pages are sanitised when added and served each from its own address (room-page.routes.ts),
  // which shell.js puts in the frame when the page's tab first opens: the shell carries none of
  // them. Drawn in a sandbox without scripts or this origin's rights.
  const pagePanels = pages
    .map(
      (p) => `
<section class="panel page" id="panel-${p.id}" role="tabpanel" aria-labelledby="tab-${p.id}" hidden>
  <iframe title="${escapeHtml(p.title)}" data-page="${p.id}" data-src="/room/${session.id}/pages/${p.id}" sandbox="allow-popups allow-popups-to-escape-sandbox" referrerpolicy="no-referrer"></iframe>
</section>`,
    )
    .join('');
  const empty = ordered.length || pages.length ? '' : '<p class="notice">Nothing is live in this room yet. Come back soon.</p>';

  const body = `
<header class="bar">
  ${brandMark(look, `/room/${session.id}/logo`)}<span class="project" title="${escapeHtml(project.name)}">${escapeHtml(project.name)}</span>${session.preview ? '<span class="badge">Preview</span>' : ''}
  <nav class="tabs" role="tablist">${tabs}</nav>
  <button type="button" class="tools-toggle" id="tools-toggle" aria-expanded="false" aria-controls="tools" aria-label="Menu">Menu</button>
  <span class="tools" id="tools">${data.story.length ? '<button type="button" id="story-toggle" aria-expanded="false" aria-controls="story">Tour</button>' : ''}${ordered.length ? deviceMenu : ''}${controlsMenu(data.controls)}${ordered.length ? commentButton : ''}${data.voice.steps.length ? nextButton : ''}</span>
</header>
${data.controls.reset || data.controls.scenarios.length ? '<p class="run-outcome" role="status" hidden></p>' : ''}
${data.story.length ? storyPanel(data.voice.steps.length > 0) : ''}
${data.voice.steps.length ? nextPanel(data.voice, session.preview) : ''}
${ordered.length ? commentsPanel(session.preview) : ''}
${personalised ? personalNote : ''}
<main class="stage">${empty}${appPanels}${pagePanels}</main>
<dialog id="who">
  <form method="dialog" id="who-form">
    <h2>Who are you?</h2>
    <p class="who-sent">${whoSent(sender, session.preview, isPublicVisit(session))}</p>
    <label>Your name <input name="name" maxlength="80" autocomplete="name"></label>
    <label class="company" hidden>Your company <span class="optional">(optional)</span> <input name="company" maxlength="80" autocomplete="organization"></label>
    <label class="email">Your email <input name="email" type="email" maxlength="254" autocomplete="email"></label>
    <p class="error" role="alert"></p>
    <button type="submit">Enter the room</button>
  </form>
</dialog>
${emailDialog(sender)}
${madeWithBadge(look, settings.service)}`;
  return roomDocument({ title: project.name, body, head: style, scripts: ['/room/assets/voice.js', '/room/assets/shell.js'], data });
}

/** A visit through a listed project's public room: neither a link's nor a preview's. */
export const isPublicVisit = (session: RoomSessionRow) => !session.linkId && !session.preview;

/** The prompt's line: who sent the link, and that the visit is recorded for them (none in a preview). */
const whoSent = (sender: string | null, preview: boolean, publicVisit = false) =>
  preview
    ? 'This is a preview: nothing of it is recorded.'
    : publicVisit
      ? 'This demo is listed in the community; the builder sees your visit and the email you give.'
      : `${sender ? `${escapeHtml(sender)} sent you this link.` : 'This link was sent to you.'} Your visit (your name and the time you spend on each part) is recorded for ${sender ? 'them' : 'the sender'}.`;

/**
 * Told once per session (shell.ts remembers the dismissal): the build is told who is viewing, so
 * the viewer knows why the demo greets them by name.
 */
const personalNote = `
<p class="personal-note" id="personal-note" role="status" hidden>This demo is personalised for you: it is told your name and company. <button type="button" id="personal-note-dismiss">Got it</button></p>`;

/** The device frame the viewer picks for the app in view; the manifest's device is where it starts. */
const deviceMenu = `
<details class="menu-button device"><summary aria-label="Device frame">Device</summary><div class="menu" role="menu">
<button type="button" role="menuitemradio" data-device="laptop">Desktop</button>
<button type="button" role="menuitemradio" data-device="tablet">Tablet</button>
<button type="button" role="menuitemradio" data-device="phone">Phone</button>
</div></details>`;

const controlsMenu = (c: ShellData['controls']) =>
  !c.reset && !c.scenarios.length
    ? ''
    : `
<details class="menu-button controls"><summary>Scenarios</summary><div class="menu" role="menu">
${c.reset ? '<button type="button" data-run="reset">Reset the demo</button>' : ''}
${c.scenarios.map((sc) => `<button type="button" data-run="scenario" data-id="${escapeHtml(sc.id)}" title="${escapeHtml(sc.description ?? '')}">${escapeHtml(sc.label)}</button>`).join('')}
</div></details>`;

/**
 * The tour card. A step's calls show as one line in the viewer's words ("Preparing this step…",
 * then nothing or why it failed); the calls themselves are the builder's (the rehearsal, a preview).
 * At the last step the card offers What happens next, which opens only when the viewer asks.
 */
const storyPanel = (offerNext: boolean) => `
<aside id="story" class="story" hidden aria-label="Guided tour">
  <p class="step-count"></p>
  <h2 class="step-title"></h2>
  <p class="step-say"></p>
  <p class="step-status" role="status" hidden></p>
  <ul class="step-calls" hidden></ul>
  ${offerNext ? '<div class="next-offer" hidden><p>That was the last step.</p><div class="row"><button type="button" class="offer-open">What happens next</button><button type="button" class="offer-dismiss">Not now</button></div></div>' : ''}
  <div class="step-nav"><button type="button" data-step="-1">Back</button><button type="button" data-step="1">Next</button><button type="button" class="story-done" hidden>Done</button></div>
</aside>`;

const tab = (id: string, name: string, kind: 'app' | 'page') =>
  `<button type="button" role="tab" id="tab-${id}" data-tab="${id}" data-kind="${kind}" aria-controls="panel-${id}" aria-selected="false">${escapeHtml(name)}</button>`;
