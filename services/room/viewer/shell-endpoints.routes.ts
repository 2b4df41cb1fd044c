import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { ProjectRow } from '../../data/projects.sql.js';
import { mintGrant } from '../../data/content-grants.sql.js';
import { saveWhoYouAre, sessionByToken, sessionStanding, type RoomSessionRow } from '../../data/viewer-sessions.sql.js';
import { arriveInVisit, endVisit, recordBeat } from '../../data/visits.sql.js';
import type { RoomEvent } from '../../data/room-events.sql.js';
import { roomEvidence } from './room-evidence.js';
import { recordEvidence } from '../../data/link-evidence.sql.js';
import { contentOriginOf, sessionLabelOf } from '../origins.js';
import { isPublicVisit } from './shell-page.js';
import { seatsOf } from './viewer-admission.js';
import { copyNotice } from '../viewer-copies/copy-states.js';
import { storyCalls } from '../viewer-copies/story-calls.js';
import { RunnerRefusal } from '../../contract/runner/runner-refusal.js';
import { tokenIn } from './room-cookies.js';
import { fromRoomPage, invalidBody, shellGuard } from './shell-guard.js';
import { beatBatcher } from './beat-batcher.js';
import { coarseDeviceOf } from './coarse-device.js';
import { hashSecret, isUuid } from '../../core/ids.js';
import { storable } from '../../core/storable-text.js';
import type { ViewerDeps } from './room-entry.routes.js';

// The few endpoints the room shell calls for its session: who-are-you, grants to the content
// origin, controls and story calls, the time beacon, and leaving.

export function registerShellEndpoints(app: FastifyInstance, deps: ViewerDeps) {
  const { sql, config } = deps;
  const shellSession = shellGuard(deps);
  const evidence = roomEvidence(sql);

  // Cookies are SameSite=Lax and every POST must come from this origin.
  const Hello = z.object({ name: z.preprocess(storable, z.string().trim().min(1).max(80)), email: z.preprocess(storable, z.email().max(254)).optional() });
  app.post('/room/:sessionId/hello', async (req, reply) => {
    const session = await shellSession(req, reply);
    if (!session) return;
    const parsed = Hello.safeParse(req.body);
    if (!parsed.success) return invalidBody(reply, parsed.error);
    const project = await projectOf(session);
    if (project.requireEmail && !parsed.data.email && !session.viewerEmail) {
      return reply.status(400).send({ error: 'invalid', issues: [{ path: 'email', message: 'this demo asks for your email' }] });
    }
    const named = await saveWhoYouAre(sql, session.id, parsed.data);
    const full = await arrive(named, req);
    await evidence.claim(named, req);
    return full ? { ok: true, full } : { ok: true };
  });

  // The shell's first word as it starts: a browser really ran the room (a link-preview fetch or
  // a mail scanner never gets here). The session takes its seat, the visit starts, the link is
  // opened, the entry recorded. With every seat taken, `full`: the shell reloads the address,
  // which then says Demo full (and counts the turn-away).
  app.post('/room/:sessionId/arrive', async (req, reply) => {
    const session = await shellSession(req, reply);
    if (!session) return;
    if (await arrive(session, req)) return { ok: false, full: true };
    if (session.viewerName) await evidence.claim(session, req);
    return { ok: true };
  });

  /** Arrival (arriveInVisit); true when the room had no seat left for the session. */
  async function arrive(session: RoomSessionRow, req: FastifyRequest): Promise<boolean> {
    const { visitId, started, full } = await arriveInVisit(sql, session, await seatsOf(sql, session.workspaceId));
    if (started) await evidence.events(session, req, [{ kind: 'entry' }], visitId);
    return full;
  }

  app.post('/room/:sessionId/grant', async (req, reply) => {
    const session = await shellSession(req, reply);
    if (!session) return;
    const project = await projectOf(session);
    if ((!session.viewerName && !isPublicVisit(session)) || (project.requireEmail && !session.viewerEmail)) {
      return reply.status(403).send({ error: 'who are you first', reason: 'hello' });
    }
    const standing = await sessionStanding(sql, session.id);
    if (!standing) return reply.status(404).send({ error: 'not found' });
    const appId = z.object({ app: z.string().max(40) }).safeParse(req.body);
    const manifest = standing.manifest;
    const app0 = manifest?.apps.find((a) => a.id === (appId.success ? appId.data.app : ''));
    if (!app0) return reply.status(404).send({ error: 'not found' });
    if (standing.kind === 'container') {
      // The viewer's own copy: admitted, started and healthy before any grant to its origin.
      const view = await deps.runner.enter(session.id, { workspaceId: session.workspaceId, projectId: session.projectId, buildId: standing.liveBuildId! }, 10_000);
      if (view.state !== 'running') return { ...copyNotice(view), state: view.state };
    }
    const label = sessionLabelOf(standing, session.id);
    const grant = await mintGrant(sql, session.id, label);
    const origin = contentOriginOf(config, label);
    return { state: 'ready', origin, url: `${origin}/__pp/enter?g=${encodeURIComponent(grant)}&to=${encodeURIComponent(app0.path)}` };
  });

  // Controls and story steps run on the viewer's own copy, in order, before the step shows. The
  // shell names what to run; the calls themselves come from the live manifest, never the browser.
  const Run = z.object({ reset: z.literal(true) }).or(z.object({ scenario: z.string().max(40) })).or(z.object({ step: z.string().max(40) }));
  app.post('/room/:sessionId/run', async (req, reply) => {
    const session = await shellSession(req, reply);
    if (!session) return;
    const standing = await sessionStanding(sql, session.id);
    const parsed = Run.safeParse(req.body);
    if (!standing?.manifest) return reply.status(404).send({ error: 'not found' });
    if (!parsed.success) return reply.status(400).send({ error: 'invalid', issues: [{ path: 'body', message: 'name reset, a scenario or a step' }] });
    const calls = storyCalls(standing.manifest, parsed.data);
    if (calls === null) return reply.status(404).send({ error: 'not found' });
    // A story step taken or a scenario tried is engagement (link-evidence.sql.ts); a preview records nothing.
    if (!session.preview) {
      await recordEvidence(sql, session.linkId, 'engaged');
      const ask = parsed.data;
      await evidence.events(session, req, ['step' in ask ? { kind: 'step', subject: ask.step } : { kind: 'scenario', subject: 'scenario' in ask ? ask.scenario : 'reset' }]);
    }
    if (!calls.length || standing.kind !== 'container') return { ok: true };
    try {
      const { copy, outcomes } = await deps.runner.calls(session.id, calls);
      const ok = outcomes.every((o) => o.ok);
      // Which calls ran and what they answered is the builder's: their own preview shows it, and
      // a failed call is logged; a viewer's room hears only whether it worked.
      if (!ok) req.log.warn({ session: session.id, failed: outcomes.filter((o) => !o.ok).map((o) => o.call) }, 'room run: a call failed');
      return { ok, ...(session.preview ? { outcomes } : {}), copy: copyNotice(copy) };
    } catch (err) {
      // The copy stopped (it crashed, or was culled) before the calls: say so in the room's words.
      if (err instanceof RunnerRefusal && err.copy) return { ok: false, copy: copyNotice(err.copy) };
      throw err;
    }
  });

  const Beat = z.object({
    // Keys are app ids and page ids: plain words, never a character Postgres refuses in jsonb.
    time: z.record(z.string().regex(timeKey), z.number().min(0).max(86_400)).refine((t) => Object.keys(t).length <= 50),
    /** The viewer has a container copy open. */
    copy: z.boolean().optional(),
    /** The room's tab went out of view (this beacon is its last word until it is back), or came back. */
    hidden: z.boolean().optional(),
    shown: z.boolean().optional(),
  });

  /** A beat's seconds, as credited to the visit, and the tab's comings and goings, as events. */
  async function beatWithEvents(session: RoomSessionRow, req: FastifyRequest, beat: z.infer<typeof Beat>) {
    const { visitId, credited } = await recordBeat(sql, session, beat.time);
    const events: RoomEvent[] = Object.entries(credited).map(([subject, seconds]) => ({ kind: 'time', subject, seconds }));
    if (beat.shown) events.unshift({ kind: 'shown' });
    if (beat.hidden) events.push({ kind: 'hidden' });
    await evidence.events(session, req, events, visitId ?? session.visitId);
  }
  // The beacon, every 5 s from every viewer: written in batches with other viewers' beats
  // (beat-batcher.ts), the session's token checked there. A beat the batch leaves alone (a new
  // visit to start, a preview, an unknown session) takes the one-by-one path.
  const beats = beatBatcher(sql);
  app.post('/room/:sessionId/beat', async (req, reply) => {
    if (!fromRoomPage(config, req, reply)) return;
    const { sessionId } = req.params as { sessionId: string };
    const token = tokenIn(req, sessionId);
    const parsed = Beat.safeParse(parseBeacon(req.body));
    const batched = parsed.success && token && isUuid(sessionId) && token.length <= 200
      ? await beats.add({
          sessionId, tokenHash: hashSecret(token), time: parsed.data.time, shown: Boolean(parsed.data.shown),
          hidden: Boolean(parsed.data.hidden), device: coarseDeviceOf(req.headers['user-agent']),
        })
      : 'alone';
    if (batched === 'alone') {
      const session = await shellSession(req, reply);
      if (!session) return;
      if (!parsed.success) return reply.status(400).send({ error: 'invalid', issues: [{ path: 'time', message: 'expected seconds by app or page' }] });
      if (!session.preview) await beatWithEvents(session, req, parsed.data);
    }
    // The shell's heartbeat is activity too: a viewer reading a page keeps their copy awake.
    if (parsed.success && parsed.data.copy) deps.runner.activity(sessionId).catch(() => {});
    return { ok: true };
  });

  app.post('/room/:sessionId/leave', async (req, reply) => {
    const session = await shellSession(req, reply);
    if (!session) return;
    const parsed = Beat.safeParse(parseBeacon(req.body));
    if (!session.preview) {
      if (parsed.success) await beatWithEvents(session, req, parsed.data);
      await evidence.events(session, req, [{ kind: 'leave' }]);
      await endVisit(sql, (await sessionByToken(sql, session.id, tokenIn(req, session.id))) ?? session);
    }
    if (parsed.success && parsed.data.copy) releaseLater(session.id);
    return { ok: true };
  });

  /**
   * A viewer who left hands their copy back, unless they are back within a few seconds (a
   * reload leaves and enters at once, and should find their copy as they left it).
   */
  const releaseSeconds = 20;
  function releaseLater(sessionId: string) {
    setTimeout(async () => {
      try {
        const [row] = await sql<{ back: boolean }[]>`
          select last_seen_at > now() - make_interval(secs => ${releaseSeconds}) as back from room_sessions where id = ${sessionId}`;
        if (row && !row.back) await deps.runner.leave(sessionId);
      } catch (err) {
        deps.log.warn({ err, sessionId }, 'could not hand back a copy; the idle culler will');
      }
    }, releaseSeconds * 1000).unref();
  }

  async function projectOf(session: RoomSessionRow): Promise<ProjectRow> {
    const [project] = await sql<ProjectRow[]>`select * from projects where id = ${session.projectId}`;
    return project;
  }
}

/** What a beat's `time` may be keyed by: an app id (manifest.schema.ts) or a page id (a uuid). */
const timeKey = /^[\w./:-]{1,80}$/;

/** sendBeacon posts text/plain; the shell's fetches post JSON. */
function parseBeacon(body: unknown): unknown {
  if (typeof body !== 'string') return body;
  try {
    return JSON.parse(body);
  } catch {
    return null;
  }
}
