import type { HandlerGroup } from '../routing/handler.js';
import { createSession } from '../../data/sessions.sql.js';
import { MCP_PATH } from './mcp-path.js';
import { requireRecentSignIn } from '../auth/step-up.js';

export const connectorTokenHandlers = {
  /** A new connector session, starting on the issuer's active workspace; the token is shown once. */
  createConnectorToken: async ({ deps, auth, body, req }) => {
    // A token of up to a year is account power: only a recent sign-in in the web app (security-3 M4).
    requireRecentSignIn(auth, 'createConnectorToken');
    const { token, sessionId, expiresAt } = await createSession(deps.sql, {
      personId: auth.personId,
      kind: 'connector',
      readOnly: body.readOnly,
      days: body.days,
      method: 'connector',
      userAgent: body.name ? `connector: ${body.name}` : `connector, issued from ${req.headers['user-agent'] ?? 'an unknown client'}`,
      workspaceId: auth.workspaceId,
    });
    return { id: sessionId, token, readOnly: body.readOnly, expiresAt: expiresAt.toISOString(), mcpUrl: deps.config.publicUrl + MCP_PATH };
  },
} satisfies HandlerGroup;
