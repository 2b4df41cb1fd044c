import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { isResponseSerializationError } from 'fastify-type-provider-zod';
import { InvalidRequest } from './validator.js';
import { Refusal } from '../../core/rules/errors.js';

/** The answer to a body in a type other than JSON (docs/decisions/contract-and-wire.md). */
export const UNSUPPORTED_MEDIA_TYPE = { error: 'unsupported media type', detail: 'send application/json' } as const;

/**
 * The one place where errors become replies (spec section 7). Refusals keep their status and body;
 * a body that does not fit is 400 invalid with one issue per field; anything else is a platform
 * fault: logged in full, answered 500 with no detail.
 */
export function errorHandler(err: FastifyError | Refusal | Error, req: FastifyRequest, reply: FastifyReply) {
  if (err instanceof Refusal) {
    // A rate limit, or a 503 for want of room, says when to come back, in the header clients and
    // proxies know (RFC 9110).
    if ((err.status === 429 || err.status === 503) && typeof err.extra.retryAfter === 'number')
      reply.header('retry-after', String(err.extra.retryAfter));
    return reply.status(err.status).send(err.body());
  }

  if (err instanceof InvalidRequest) return reply.status(400).send({ error: 'invalid', issues: err.issues });

  if (isResponseSerializationError(err)) {
    req.log.error({ err, issues: err.cause.issues }, 'reply does not fit the contract; not sent');
    return reply.status(500).send({ error: 'internal error' });
  }

  const fe = err as FastifyError;
  if (fe.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return reply.status(415).send(UNSUPPORTED_MEDIA_TYPE);
  if (
    fe.code === 'FST_ERR_CTP_EMPTY_JSON_BODY' ||
    fe.code === 'FST_ERR_CTP_INVALID_JSON_BODY' ||
    (fe.statusCode === 400 && fe.code?.startsWith('FST_ERR_CTP'))
  ) {
    return reply.status(400).send({ error: 'invalid', issues: [{ path: 'body', message: fe.message }] });
  }
  if (fe.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return reply.status(413).send({ error: 'too large' });
  if (fe.statusCode && fe.statusCode >= 400 && fe.statusCode < 500) {
    return reply.status(fe.statusCode).send({ error: fe.message });
  }
  req.log.error({ err }, 'internal error');
  return reply.status(500).send({ error: 'internal error' });
}
