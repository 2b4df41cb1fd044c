import type { FastifyInstance, FastifyReply } from 'fastify';
import type { RunnerClient } from '@demo-rooms/contract/runner';
import type { Config } from '../../core/infra/config.js';
import type { Sql } from '../../core/infra/db.js';
import type { Logger } from '../../core/infra/log.js';
import { contentOriginOf } from '../origins.js';
import { isLinkPreviewBot } from './link-preview-bots.js';
import { notFoundPage, noticePage } from '../html.js';
import { arrivalOf, platformCookie, roomCookieName } from './room-cookies.js';
import { shellPage } from './shell-page.js';
import { enterByLink, enterByListing, enterByPreview, listingKey, type Meeting } from './viewer-admission.js';

// The viewer's way in on the platform origin: a link's address or a preview pass leads to
// exactly one of Not found, the owner's pause note, not taking visits, demo full, or the room.

export type ViewerDeps = { config: Config; sql: Sql; runner: RunnerClient; log: Logger };

export function registerRoomEntry(app: FastifyInstance, deps: ViewerDeps) {
  const { sql, config } = deps;
  // Read per request: a test's platform learns its own address only once listening.
  const contentSources = () => new URL(contentOriginOf(config, 'x')).origin.replace('//x.', '//*.');

  app.get('/r/:key', async (req, reply) => {
    const { key } = req.params as { key: string };
    if (isLinkPreviewBot(req.headers['user-agent'])) return botCard(reply);
    return meet(reply, key, await enterByLink(sql, key, arrivalOf(req, reply, key)));
  });

  app.get('/preview/:key', async (req, reply) => {
    const { key } = req.params as { key: string };
    // A chat's unfurler must not spend the builder's one-time pass.
    if (isLinkPreviewBot(req.headers['user-agent'])) return botCard(reply);
    return meet(reply, key, await enterByPreview(sql, key, arrivalOf(req, reply, key)));
  });

  // A listed project's public room (issue 18): anyone may enter while it is listed.
  app.get('/p/:slug', async (req, reply) => {
    const { slug } = req.params as { slug: string };
    if (isLinkPreviewBot(req.headers['user-agent'])) return botCard(reply);
    const { pass } = req.query as { pass?: string };
    const key = listingKey(slug);
    return meet(reply, key, await enterByListing(sql, slug, arrivalOf(req, reply, key), typeof pass === 'string' ? pass : undefined));
  });

  /**
   * What a link-preview bot or mail scanner gets: the same neutral card for every address, valid
   * or not, read from nothing and recording nothing (no cookie, session, visit, seat or stage).
   */
  function botCard(reply: FastifyReply) {
    return reply
      .status(200)
      .header('cache-control', 'no-store')
      .header('x-robots-tag', 'noindex, nofollow')
      .header('referrer-policy', 'no-referrer')
      .type('text/html; charset=utf-8')
      .send(noticePage('Demo', 'A private demo', ['Open this link in your browser to see the demo.']));
  }

  async function meet(reply: FastifyReply, key: string, meeting: Meeting) {
    reply.header('cache-control', 'no-store');
    reply.header('referrer-policy', 'no-referrer');
    reply.header('x-frame-options', 'DENY');
    switch (meeting.kind) {
      case 'not-found':
        return reply.status(404).type('text/html; charset=utf-8').send(notFoundPage);
      case 'paused': {
        const who = meeting.pause.by?.displayName ?? 'The owner';
        const lines = [
          `${who} paused this demo for now.`,
          ...(meeting.pause.message ? [meeting.pause.message] : []),
          'Your link will work again once it is resumed.',
        ];
        return reply
          .status(200)
          .type('text/html; charset=utf-8')
          .send(noticePage(meeting.project.name, 'Paused for now', lines));
      }
      case 'not-taking-visits':
        return reply
          .status(200)
          .type('text/html; charset=utf-8')
          .send(
            noticePage(meeting.project.name, 'Not taking visits', [
              'This demo is not taking new visits this month. The person who sent you the link has been told; try again later.',
            ]),
          );
      case 'full':
        return reply
          .status(200)
          .type('text/html; charset=utf-8')
          .send(
            noticePage(meeting.project.name, 'Demo full', [
              'Everyone this demo can hold at once is in it right now. Try again in a few minutes.',
            ]),
          );
      case 'room': {
        if (meeting.token) {
          reply.setCookie(roomCookieName(key), `${meeting.session.id}.${meeting.token}`, { ...platformCookie, maxAge: 12 * 3600 });
        }
        // Frames: the apps from the content origins, and the room's pages from their own
        // addresses on this origin (room-page.routes.ts), nothing else of this origin.
        const pageFrames = `${new URL(config.publicUrl).origin}/room/${meeting.session.id}/pages/`;
        reply.header(
          'content-security-policy',
          [
            "default-src 'self'",
            `frame-src ${contentSources()} ${pageFrames}`,
            "img-src 'self' data: https: http:",
            "style-src 'self' 'unsafe-inline'",
            "script-src 'self'",
            "connect-src 'self'",
            "frame-ancestors 'none'",
            "base-uri 'none'",
            "form-action 'self'",
          ].join('; '),
        );
        return reply.type('text/html; charset=utf-8').send(
          await shellPage(sql, meeting.project, meeting.session, meeting.linkViewerName, {
            screenshotMaxBytes: config.SCREENSHOT_MAX_BYTES,
            flushMs: config.SHELL_FLUSH_MS,
            service: { name: config.SERVICE_NAME, url: config.publicUrl },
          }),
        );
      }
    }
  }
}
