import type { z } from 'zod';
import type { ErrorBody, ShellData, ShellRoutes } from '@demo-rooms/contract';

// Types only, shared by the shell's two scripts (shell.ts, voice.ts), which are bundled apart
// and meet at run time through window.ppVoice: the calls the shell makes on its room endpoints
// (the contract's rows, shell.routes.ts) and what shell.ts hands voice.ts.

/** Each endpoint the shell posts to (its last path segment), by its row in the contract. */
type Calls = {
  hello: 'shellHello';
  arrive: 'shellArrive';
  grant: 'shellGrant';
  run: 'shellRun';
  beat: 'shellBeat';
  answer: 'shellAnswer';
  comments: 'shellComment';
  email: 'shellEmail';
  replies: 'shellReplies';
  'replies-seen': 'shellRepliesSeen';
};
export type ShellCall = keyof Calls;
type Row<C extends ShellCall> = ShellRoutes[Calls[C]];
export type BodyOf<C extends ShellCall> = Row<C> extends { body: z.ZodType } ? z.input<Row<C>['body']> : Record<string, never>;

/** A refusal's fields the shell reads (errors.schema.ts). */
type Refusal = Pick<ErrorBody, 'error' | 'issues' | 'detail'>;
type AllKeys<U> = U extends unknown ? keyof U : never;
type ValueOf<U, K extends PropertyKey> = U extends unknown ? (K extends keyof U ? U[K] : never) : never;
/**
 * Every field of any of the union's members, each optional: what an answer may hold before the
 * shell knows which one it is. The shell reads an answer field by field (a refusal, a reply, or
 * `{}` when the body was not JSON), as it did when it was plain JavaScript.
 */
export type Fields<U> = { [K in AllKeys<U>]?: ValueOf<U, K> };
/** What `res.json()` of a call may be: its reply, a refusal, or nothing. */
export type ReplyOf<C extends ShellCall> = Fields<z.output<Row<C>['reply']> | Refusal>;

/** What voice.ts needs of the shell: the frames, their origins, the app in view, and word of a frame's load and a tab shown. */
export type RoomHooks = {
  data: ShellData;
  post: <C extends ShellCall>(path: C, body: BodyOf<C>) => Promise<Response>;
  frameOf: (app: string) => HTMLIFrameElement | null;
  originOf: (app: string) => string | null;
  appPath: (app: string) => string | null;
  currentApp: () => string | null;
  /** The app whose frame `source` is, when the message came from its origin. */
  appOfWindow: (source: MessageEventSource | null, origin: string) => string | null;
  onFrameLoad: (f: (app: string) => void) => void;
  onShow: (f: (id: string) => void) => void;
};

declare global {
  interface Window {
    /** Set by voice.js (loaded first), called by shell.js once the viewer is in. */
    ppVoice?: (room: RoomHooks) => void;
  }
}
