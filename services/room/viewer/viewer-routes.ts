import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { RunnerClient } from '../../../runner/client.js';
import type { Config } from '../../core/config.js';
import type { Logger } from '../../core/log.js';
import type { Sql } from '../../core/db.js';
import { hashSecret } from '../../core/ids.js';
import type { ProjectRow } from '../../api/projects/projects.sql.js';
import { mintGrant } from '../content/grants.sql.js';
import { copyNotice } from '../copies/copy-states.js';
import { storyCalls } from '../copies/story-calls.js';
import { contentOriginOf, copyLabelOf } from '../origins.js';
import { enterByLink, enterByPreview, type Arrival, type Meeting } from './admission.js';
import { notFoundPage, noticePage } from './html.js';
import { saveWhoYouAre, sessionByToken, sessionStanding, type RoomSessionRow } from './sessions.sql.js';
import { shellPage } from './shell-page.js';
import { endVisit, recordBeat } from './visits.sql.js';

// The viewer's side of the platform origin: link entry, preview passes, and the few endpoints
// the shell calls (who-are-you, grants to the content origin, the time beacon, leaving).
// A browser keeps one cookie per room it entered, named after the entry address, holding
// `<session id>.<token>`; the shell's endpoints name the session and take the matching cookie.

const browserCookie = 'pp_browser';

export type ViewerDeps = { config: Config; sql: Sql; runner: RunnerClient; log: Logger };

export function registerViewerRoutes(app: FastifyInstance, deps: ViewerDeps) {
  const { sql, config } = deps;
  // Read per request: a test's platform learns its own address only once listening.
  const platformOrigin = () => new URL(config.publicUrl).origin;
  const contentSources = () => new URL(contentOriginOf(config, 'x')).origin.replace('//x.', '//*.');

  app.get('/r/:key', async (req, reply) => {
    const { key } = req.params as { key: string };
    return meet(req, reply, key, await enterByLink(sql, key, arrivalOf(req, reply, key)));
  });

  app.get('/preview/:key', async (req, reply) => {
    const { key } = req.params as { key: string };
    return meet(req, reply, key, await enterByPreview(sql, key, arrivalOf(req, reply, key)));
  });

  async function meet(req: FastifyRequest, reply: FastifyReply, key: string, meeting: Meeting) {
    reply.header('cache-control', 'no-store');
    reply.header('referrer-policy', 'no-referrer');
    reply.header('x-frame-options', 'DENY');
    switch (meeting.kind) {
      case 'not-found':
        return reply.status(404).type('text/html; charset=utf-8').send(notFoundPage);
      case 'paused': {
        const who = meeting.pause.by?.displayName ?? 'The owner';
        const lines = [`${who} paused this demo for now.`, ...(meeting.pause.message ? [meeting.pause.message] : []), 'Your link will work again once it is resumed.'];
        return reply.status(200).type('text/html; charset=utf-8').send(noticePage(meeting.project.name, 'Paused for now', lines));
      }
      case 'not-taking-visits':
        return reply.status(200).type('text/html; charset=utf-8')
          .send(noticePage(meeting.project.name, 'Not taking visits', ['This demo is not taking new visits this month. The person who sent you the link has been told; try again later.']));
      case 'full':
        return reply.status(200).type('text/html; charset=utf-8')
          .send(noticePage(meeting.project.name, 'Demo full', ['Everyone this demo can hold at once is in it right now. Try again in a few minutes.']));
      case 'room': {
        if (meeting.token) {
          reply.setCookie(roomCookieName(key), `${meeting.session.id}.${meeting.token}`, {
            path: '/', httpOnly: true, sameSite: 'lax', secure: platformOrigin().startsWith('https:'), maxAge: 12 * 3600,
          });
        }
        reply.header('content-security-policy', [
          "default-src 'self'", `frame-src ${contentSources()}`, "img-src 'self' data: https: http:", "style-src 'self' 'unsafe-inline'",
          "script-src 'self'", "connect-src 'self'", "frame-ancestors 'none'", "base-uri 'none'", "form-action 'self'",
        ].join('; '));
        return reply.type('text/html; charset=utf-8').send(await shellPage(sql, meeting.project, meeting.session, meeting.linkViewerName));
      }
    }
  }

  // The shell's endpoints. Cookies are SameSite=Lax and every POST must come from this origin.
  const Hello = z.object({ name: z.string().trim().min(1).max(80), email: z.email().max(254).optional() });
  app.post('/room/:sessionId/hello', async (req, reply) => {
    const session = await shellSession(req, reply);
    if (!session) return;
    const parsed = Hello.safeParse(req.body);
    if (!parsed.success) return reply.status(400).send({ error: 'invalid', issues: parsed.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })) });
    const project = await projectOf(session);
    if (project.requireEmail && !parsed.data.email && !session.viewerEmail) {
      return reply.status(400).send({ error: 'invalid', issues: [{ path: 'email', message: 'this demo asks for your email' }] });
    }
    await saveWhoYouAre(sql, session.id, parsed.data);
    return { ok: true };
  });

  app.post('/room/:sessionId/grant', async (req, reply) => {
    const session = await shellSession(req, reply);
    if (!session) return;
    const project = await projectOf(session);
    if (!session.viewerName || (project.requireEmail && !session.viewerEmail)) {
      return reply.status(403).send({ error: 'who are you first', reason: 'hello' });
    }
    const standing = await sessionStanding(sql, session.id);
    if (!standing) return reply.status(404).send({ error: 'not found' });
    const appId = z.object({ app: z.string().max(40) }).safeParse(req.body);
    const manifest = standing.manifest ? (JSON.parse(standing.manifest) as { apps: { id: string; path: string }[] }) : null;
    const app0 = manifest?.apps.find((a) => a.id === (appId.success ? appId.data.app : ''));
    if (!app0) return reply.status(404).send({ error: 'not found' });
    if (standing.kind === 'container') {
      // The viewer's own copy: admitted, started and healthy before any grant to its origin.
      const view = await deps.runner.enter(session.id, { workspaceId: session.workspaceId, projectId: session.projectId, buildId: standing.liveBuildId! }, 10_000);
      if (view.state !== 'running') return { ...copyNotice(view), state: view.state };
    }
    const label = standing.kind === 'container' ? copyLabelOf(standing.slug, session.id) : standing.slug;
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
    const calls = storyCalls(JSON.parse(standing.manifest), parsed.data);
    if (calls === null) return reply.status(404).send({ error: 'not found' });
    if (!calls.length || standing.kind !== 'container') return { ok: true, outcomes: [] };
    const { copy, outcomes } = await deps.runner.calls(session.id, calls);
    return { ok: outcomes.every((o) => o.ok), outcomes, copy: copyNotice(copy) };
  });

  const Beat = z.object({
    time: z.record(z.string().max(80), z.number().min(0).max(86_400)).refine((t) => Object.keys(t).length <= 50),
    /** The viewer has a container copy open. */
    copy: z.boolean().optional(),
  });
  app.post('/room/:sessionId/beat', async (req, reply) => {
    const session = await shellSession(req, reply);
    if (!session) return;
    const parsed = Beat.safeParse(parseBeacon(req.body));
    if (!parsed.success) return reply.status(400).send({ error: 'invalid', issues: [{ path: 'time', message: 'expected seconds by app or page' }] });
    if (!session.preview) await recordBeat(sql, session, parsed.data.time);
    // The shell's heartbeat is activity too: a viewer reading a page keeps their copy awake.
    if (parsed.data.copy) deps.runner.activity(session.id).catch(() => {});
    return { ok: true };
  });

  app.post('/room/:sessionId/leave', async (req, reply) => {
    const session = await shellSession(req, reply);
    if (!session) return;
    const parsed = Beat.safeParse(parseBeacon(req.body));
    if (!session.preview) {
      if (parsed.success) await recordBeat(sql, session, parsed.data.time);
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

  async function shellSession(req: FastifyRequest, reply: FastifyReply): Promise<RoomSessionRow | null> {
    const { sessionId } = req.params as { sessionId: string };
    const origin = req.headers.origin;
    if (origin !== undefined && origin !== platformOrigin()) {
      reply.status(403).send({ error: 'role cannot', reason: 'permission', action: 'cross-origin' });
      return null;
    }
    const session = await sessionByToken(sql, sessionId, tokenIn(req, sessionId));
    if (!session) {
      reply.status(404).send({ error: 'not found' });
      return null;
    }
    return session;
  }

  async function projectOf(session: RoomSessionRow): Promise<ProjectRow> {
    const [project] = await sql<ProjectRow[]>`select * from projects where id = ${session.projectId}`;
    return project;
  }
}

/** The room cookie of an entry address: one per room a browser entered, so rooms never collide. */
const roomCookieName = (key: string) => `pp_r${hashSecret(key).subarray(0, 6).toString('hex')}`;

/** The token of `sessionId` among the browser's room cookies. */
function tokenIn(req: FastifyRequest, sessionId: string): string | undefined {
  for (const [name, value] of Object.entries(req.cookies)) {
    if (name.startsWith('pp_r') && value?.startsWith(`${sessionId}.`)) return value.slice(sessionId.length + 1);
  }
  return undefined;
}

/** What the browser holds for this entry address; gives it a bounce id the first time. */
function arrivalOf(req: FastifyRequest, reply: FastifyReply, key: string): Arrival {
  const [sessionId, token] = (req.cookies[roomCookieName(key)] ?? '').split('.', 2);
  let browserId = req.cookies[browserCookie];
  if (!browserId || browserId.length > 64) {
    browserId = randomBytes(16).toString('base64url');
    reply.setCookie(browserCookie, browserId, { path: '/', httpOnly: true, sameSite: 'lax', maxAge: 365 * 86400 });
  }
  return { sessionId, token, browserId };
}

/** sendBeacon posts text/plain; the shell's fetches post JSON. */
function parseBeacon(body: unknown): unknown {
  if (typeof body !== 'string') return body;
  try {
    return JSON.parse(body);
  } catch {
    return null;
  }
}
