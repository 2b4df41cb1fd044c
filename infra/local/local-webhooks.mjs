// `npm start` lets a builder point a webhook at a receiver on this machine (issue 45): local
// development's switch, WEBHOOKS_ALLOW_PRIVATE (services/core/infra/config.ts; docs/decisions/webhooks.md),
// allows http:// and private, loopback and link-local addresses. It is on unless the
// environment says otherwise, and never with NODE_ENV=production (the platform refuses to start so).

/**
 * The switch's value for `env` (the environment `npm start` runs with, NODE_ENV already decided)
 * and the start-up line that says so.
 */
export function localWebhooks(env) {
  if (env.NODE_ENV === 'production') {
    return { value: 'false', line: 'webhooks: https to public addresses only (NODE_ENV=production)' };
  }
  const value = env.WEBHOOKS_ALLOW_PRIVATE ?? 'true';
  const on = /^(true|1|yes|on|y|enabled)$/i.test(value);
  return {
    value,
    line: on
      ? 'webhooks: local receivers allowed (WEBHOOKS_ALLOW_PRIVATE=true): http:// and loopback or private addresses, e.g. http://127.0.0.1:<port>'
      : `webhooks: https to public addresses only (WEBHOOKS_ALLOW_PRIVATE=${value})`,
  };
}
