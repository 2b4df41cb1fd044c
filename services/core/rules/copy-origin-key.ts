// A viewer session's copy origin is `<slug>--v<12 hex of the session id>` (services/room/origins.ts).
// Its `v<12 hex>` part alone names the session's copy on the data plane (routes and copy tokens,
// docs/runner.md "Data plane"): the runner knows the session, not the project's slug.

/** The `v<12 hex>` key of a session's copy origin. */
export const copyOriginKey = (sessionId: string) => `v${sessionId.replace(/-/g, '').slice(0, 12).toLowerCase()}`;
