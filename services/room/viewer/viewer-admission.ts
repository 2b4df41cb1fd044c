import { createHash } from 'node:crypto';
import type { Sql } from '../../core/infra/db.js';
import { hashSecret } from '../../core/infra/ids.js';
import type { Plan } from '../../core/rules/plans.js';
import { publicListings } from '../../data/cards.sql.js';
import { resolveLinkKey } from '../../data/links.sql.js';
import { viewerHoursUsedUp } from '../../data/visits.sql.js';
import { projectById, type ProjectRow } from '../../data/projects.sql.js';
import { roomPauseOf, type OwnerPause } from '../../data/pauses.js';
import { spendCommunityPass, spendPreviewPass } from '../../data/preview-passes.sql.js';
import { displayNameOf, nameAndEmailOf } from '../../data/people.sql.js';
import { planFor } from '../../data/workspaces.sql.js';
import {
  createSession,
  holdRoomAdmission,
  markSessionSeen,
  recordBounce,
  saveWhoYouAre,
  sessionByToken,
  viewersPresent,
  type RoomSessionRow,
} from '../../data/room-sessions.sql.js';
import { endQuietVisits } from '../../data/visits.sql.js';

// What a viewer meets at a link, a listed project's public room or a preview pass (spec 7), exactly one of these. Every way of
// not existing is the same Not found, so an address tells nobody whether it ever worked.

export type Meeting =
  | { kind: 'not-found' }
  | { kind: 'paused'; project: ProjectRow; pause: OwnerPause }
  | { kind: 'not-taking-visits'; project: ProjectRow }
  | { kind: 'full'; project: ProjectRow }
  | { kind: 'room'; project: ProjectRow; session: RoomSessionRow; token: string | null; linkViewerName: string | null };

/** What the browser already holds: its session for this room, and its bounce id. */
export type Arrival = { sessionId?: string; token?: string; browserId: string };

const notFound: Meeting = { kind: 'not-found' };

/** `/r/<key>`: a private link. */
export async function enterByLink(sql: Sql, key: string, arrival: Arrival): Promise<Meeting> {
  const found = await resolveLinkKey(sql, key);
  if (!found) return notFound;
  const { link, project } = found;
  const plan = await planFor(sql, project.workspaceId);
  const pause = await roomPauseOf(sql, project);
  if (!plan.privateLinks || pause.system) return notFound;
  if (pause.owner) return { kind: 'paused', project, pause: pause.owner };

  return admit(sql, { project, plan, arrival, key, linkId: link.id, linkViewerName: link.viewerName });
}

/**
 * `/p/<slug>`: the public room of a listed project (issue 18), for anyone, without a link, while
 * the card is listed and the build it was listed with is live. Admitted as a link's viewers are
 * (the plan's crowd), within the public rooms' own allowance of hours (publicViewerHours), and
 * recorded without a name unless the viewer gives one.
 */
export async function enterByListing(sql: Sql, slug: string, arrival: Arrival, pass?: string): Promise<Meeting> {
  const [listed] = await publicListings(sql, { slug });
  if (!listed) return notFound;
  const project = (await projectById(sql, listed.projectId))!;
  const plan = await planFor(sql, project.workspaceId);
  const pause = await roomPauseOf(sql, project);
  if (pause.system) return notFound;
  if (pause.owner) return { kind: 'paused', project, pause: pause.owner };
  // A community pass (communityPass) names its signed-in person; spent or not, the room is open.
  const personId = pass ? await spendCommunityPass(sql, pass, project.id) : null;
  const meeting = await admit(sql, { project, plan, arrival, key: listingKey(slug), linkId: null, linkViewerName: null });
  if (meeting.kind !== 'room' || !personId || meeting.session.viewerName) return meeting;
  const person = await nameAndEmailOf(sql, personId);
  return person ? { ...meeting, session: await saveWhoYouAre(sql, meeting.session.id, { name: displayNameOf(person) }) } : meeting;
}

/** The entry key of a public room: its cookie and its sessions' entry. */
export const listingKey = (slug: string) => `listing:${slug}`;

/**
 * A viewer at the door of a room they may enter: back in their session, or a new one if there is
 * room. A session holds no seat until its shell arrives (arriveInVisit), so a page fetched and
 * never run fills nothing; the door only turns viewers away once the seats are taken.
 */
async function admit(
  sql: Sql,
  a: { project: ProjectRow; plan: Plan; arrival: Arrival; key: string; linkId: string | null; linkViewerName: string | null },
): Promise<Meeting> {
  const { project, plan, arrival, key, linkId, linkViewerName } = a;
  const held = await sessionByToken(sql, arrival.sessionId, arrival.token);
  const own = held && held.linkId === linkId && !held.preview && held.entryHash.equals(hashSecret(key)) ? held : null;
  // A viewer already in keeps what is open, whatever the hours or the crowd.
  if (own?.visitId) return { kind: 'room', project, session: await touch(sql, own), token: null, linkViewerName };
  // Public rooms draw on their own allowance of hours, private links on the plan's month.
  if (await viewerHoursUsedUp(sql, project.workspaceId, plan.name, linkId ? 'links' : 'public'))
    return { kind: 'not-taking-visits', project };

  return sql.begin(async (tx) => {
    await holdRoomAdmission(tx, project.id);
    await endQuietVisits(tx, project.id);
    if ((await viewersPresent(tx, project.id)) >= plan.concurrentViewers) {
      await recordBounce(tx, { workspaceId: project.workspaceId, projectId: project.id, browserHash: hashBrowser(arrival.browserId) });
      return { kind: 'full', project } as const;
    }
    // A session whose shell never arrived (a reload before it ran) is the same session.
    if (own) return { kind: 'room', project, session: own, token: null, linkViewerName } as const;
    // The visit starts when the shell runs (arriveInVisit), not here: a link-preview fetch or a
    // mail scanner that never runs it is no open, no visit, no seat and no viewer-hour.
    const { session, token } = await createSession(tx, {
      workspaceId: project.workspaceId,
      projectId: project.id,
      linkId,
      entryKey: key,
      preview: false,
    });
    return { kind: 'room', project, session, token, linkViewerName } as const;
  });
}

/** The viewers a room holds at once, on its workspace's plan: the seats its shells arrive into. */
export async function seatsOf(sql: Sql, workspaceId: string): Promise<number> {
  return (await planFor(sql, workspaceId)).concurrentViewers;
}

/**
 * `/preview/<key>`: a one-time pass opens the room as a viewer sees it (the owner's pause
 * included), marked preview, recording nothing: no visit, no bounce, no seat taken. The browser
 * that spent it may reload; nobody else can use it again.
 */
export async function enterByPreview(sql: Sql, key: string, arrival: Arrival): Promise<Meeting> {
  const held = await sessionByToken(sql, arrival.sessionId, arrival.token);
  const own = held?.preview && held.entryHash.equals(hashSecret(key)) ? held : null;
  const projectId = own?.projectId ?? (await spendPreviewPass(sql, key));
  if (!projectId) return notFound;
  const project = await projectById(sql, projectId, { notDeleted: true });
  if (!project) return notFound;
  const pause = await roomPauseOf(sql, project);
  if (pause.system) return notFound;
  if (pause.owner) return { kind: 'paused', project, pause: pause.owner };
  if (own) return { kind: 'room', project, session: await touch(sql, own), token: null, linkViewerName: null };
  const { session, token } = await createSession(sql, {
    workspaceId: project.workspaceId,
    projectId,
    linkId: null,
    entryKey: key,
    preview: true,
  });
  return { kind: 'room', project, session, token, linkViewerName: null };
}

/** A viewer back in their session (a reload): seen now, so their copy is not handed back. */
async function touch(sql: Sql, session: RoomSessionRow): Promise<RoomSessionRow> {
  await markSessionSeen(sql, session.id);
  return session;
}

const hashBrowser = (browserId: string) => createHash('sha256').update(`bounce:${browserId}`).digest();
