// One error type for every refusal. Services throw it; one handler in the api turns it into the
// spec's body (section 7): { error, reason?, ...extra }. Nothing here knows about HTTP frameworks.

export type ErrorExtra = Record<string, unknown>;

export class Refusal extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    readonly reason?: string,
    readonly extra: ErrorExtra = {},
  ) {
    super(reason ? `${error} (${reason})` : error);
    this.name = 'Refusal';
  }

  body(): Record<string, unknown> {
    return { error: this.error, ...(this.reason ? { reason: this.reason } : {}), ...this.extra };
  }
}

export const notFound = () => new Refusal(404, 'not found');
export const signInFirst = () => new Refusal(401, 'sign in first');
/** 403: the caller's role (or a read-only connection) cannot do `action`. */
export const roleCannot = (action: string) => new Refusal(403, 'role cannot', 'permission', { action });
/** 409/422 on their merits: `refused: <reason>`, with a readable detail when useful. */
export const refused = (status: 409 | 422, reason: string, detail?: string) =>
  new Refusal(status, `refused: ${reason}`, reason, detail ? { detail } : {});
export const invalid = (issues: { path: string; message: string }[]) => new Refusal(400, 'invalid', undefined, { issues });
/** 503: not now; with `retryAfter` (seconds) when the cause is load that passes (a full queue). */
export const unavailable = (detail?: string, retryAfter?: number) =>
  new Refusal(503, 'unavailable', 'unavailable', { ...(detail ? { detail } : {}), ...(retryAfter !== undefined ? { retryAfter } : {}) });
