import { z } from 'zod';
import type { Issue } from '../errors.schema.js';
import {
  AnswerBody,
  AnswerReply,
  ArriveReply,
  BeatBody,
  CommentBody,
  CommentReply,
  EmailBody,
  GrantBody,
  GrantReply,
  HelloBody,
  HelloReply,
  LeaveBody,
  Ok,
  RunBody,
  RepliesReply,
  RepliesSeenBody,
  RunReply,
} from '../resources/room-shell.js';
import type { RouteDef } from '../route.js';

// The room shell's endpoints: what the shell page (services/room/shell) calls on the platform
// origin for its viewer session. Served by the room, not the api: they are kept apart from the
// api's route table (no handler in the api's map, no tool for the connector, not in the api's
// OpenAPI document; docs/decisions/room-shell-code.md).

/**
 * Who may call, checked before the body is read. Every one comes from the room's own page (its
 * Origin, else 403) and holds the session's cookie (else 404); `named` also needs the viewer to
 * have said who they are (else 403 `hello`). `origin`: the handler finds the session itself (the
 * beat, batched with other viewers' beats), and a body that does not fit is answered only once
 * the session is found.
 */
export type ShellGuardKind = 'session' | 'named' | 'origin';

export interface ShellRouteDef extends RouteDef {
  method: 'POST';
  guard: ShellGuardKind;
  /** The one issue a body that does not fit is answered with, instead of one per field. */
  invalid?: Issue;
  /** Also takes its body as text/plain JSON (navigator.sendBeacon). */
  beacon?: boolean;
}

const shellRoute = <const R extends ShellRouteDef>(r: R): R => r;
const SessionParams = z.object({ sessionId: z.string() });
const at = (name: string) => `/room/:sessionId/${name}`;
const tag = 'room-shell';

export const shellRoutes = {
  shellHello: shellRoute({
    operation: 'shellHello',
    method: 'POST',
    path: at('hello'),
    status: 200,
    tag,
    guard: 'session',
    summary:
      'Who the viewer is (a name, and the email the room may ask for); the visit starts if it had not. `full` when every seat is taken.',
    params: SessionParams,
    body: HelloBody,
    reply: HelloReply,
    errors: [403, 404],
  }),
  shellArrive: shellRoute({
    operation: 'shellArrive',
    method: 'POST',
    path: at('arrive'),
    status: 200,
    tag,
    guard: 'session',
    summary:
      "The shell's first word: a browser really ran the room. The session takes its seat and the visit starts; `full` when none is left.",
    params: SessionParams,
    reply: ArriveReply,
    errors: [403, 404],
  }),
  shellGrant: shellRoute({
    operation: 'shellGrant',
    method: 'POST',
    path: at('grant'),
    status: 200,
    tag,
    guard: 'session',
    summary: "A grant to the app's content origin, once the viewer's own copy (if any) runs; else what the copy is doing.",
    params: SessionParams,
    body: GrantBody,
    reply: GrantReply,
    errors: [403, 404],
  }),
  shellRun: shellRoute({
    operation: 'shellRun',
    method: 'POST',
    path: at('run'),
    status: 200,
    tag,
    guard: 'session',
    summary: "Runs reset, a scenario or a story step's calls on the viewer's own copy; the calls come from the live manifest.",
    params: SessionParams,
    body: RunBody,
    reply: RunReply,
    errors: [403, 404],
    invalid: { path: 'body', message: 'name reset, a scenario or a step' },
  }),
  shellBeat: shellRoute({
    operation: 'shellBeat',
    method: 'POST',
    path: at('beat'),
    status: 200,
    tag,
    guard: 'origin',
    beacon: true,
    summary: 'The time beacon: visible seconds by app or page since the last beat, and the tab hidden or shown.',
    params: SessionParams,
    body: BeatBody,
    reply: Ok,
    errors: [403, 404],
    invalid: { path: 'time', message: 'expected seconds by app or page' },
  }),
  shellLeave: shellRoute({
    operation: 'shellLeave',
    method: 'POST',
    path: at('leave'),
    status: 200,
    tag,
    guard: 'session',
    beacon: true,
    summary: "The viewer left: the last beat, the visit's end, and the copy handed back unless they are back within seconds.",
    params: SessionParams,
    body: LeaveBody,
    reply: Ok,
    errors: [403, 404],
  }),
  shellAnswer: shellRoute({
    operation: 'shellAnswer',
    method: 'POST',
    path: at('answer'),
    status: 200,
    tag,
    guard: 'named',
    summary: "An answer to What happens next; `askEmail` once, on the visit's first answer or comment. A preview records nothing.",
    params: SessionParams,
    body: AnswerBody,
    reply: AnswerReply,
    errors: [403, 404],
  }),
  shellComment: shellRoute({
    operation: 'shellComment',
    method: 'POST',
    path: at('comments'),
    status: 200,
    tag,
    guard: 'named',
    summary:
      'A comment pinned to a point or an area of a screen, with the picture the frame took; at most COMMENTS_PER_SESSION_HOUR an hour.',
    params: SessionParams,
    body: CommentBody,
    reply: CommentReply,
    errors: [403, 404, 422, 429, 503],
  }),
  shellEmail: shellRoute({
    operation: 'shellEmail',
    method: 'POST',
    path: at('email'),
    status: 200,
    tag,
    guard: 'named',
    summary: 'The email the room asks for once; not verified, nothing is sent.',
    params: SessionParams,
    body: EmailBody,
    reply: Ok,
    errors: [403, 404],
  }),
  shellReplies: shellRoute({
    operation: 'shellReplies',
    method: 'POST',
    path: at('replies'),
    status: 200,
    tag,
    guard: 'named',
    summary:
      "The link's comments with the builder's replies, as now: the shell asks every minute or so while the viewer is in the room and has comments. A preview has none.",
    params: SessionParams,
    reply: RepliesReply,
    errors: [403, 404],
  }),
  shellRepliesSeen: shellRoute({
    operation: 'shellRepliesSeen',
    method: 'POST',
    path: at('replies-seen'),
    status: 200,
    tag,
    guard: 'named',
    summary:
      "The viewer saw the builder's replies to these comments of their link: they are no longer counted as new. A preview records nothing.",
    params: SessionParams,
    body: RepliesSeenBody,
    reply: Ok,
    errors: [403, 404],
  }),
};

export type ShellRoutes = typeof shellRoutes;
export type ShellOperation = keyof ShellRoutes;
