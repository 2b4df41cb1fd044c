import { z } from 'zod';
import { DateTime, Id } from '../common.js';
import { route } from '../route.js';
import { nameText } from '../storable-text.js';

// Issue 20: a person issues tokens for the AI-assistant connector (spec 5 (3)–(6) names the
// kind, not how it is issued). They are listed and ended with the person's sessions.
export const connectorRoutes = {
  createConnectorToken: route({
    operation: 'createConnectorToken',
    method: 'POST',
    path: '/api/me/connector-tokens',
    status: 200,
    tag: 'account',
    summary:
      "A token for the AI-assistant connector (MCP at /mcp), shown once; it acts on the caller's active workspace. Read-only connections cannot change anything or see a link's address. This API refuses it; the connector takes nothing else. Only a browser session signed in within the last minutes may mint one (else 403 `permission` with `stepUp`).",
    body: z.object({
      name: nameText(80).optional().describe('what the token is for, e.g. the assistant'),
      readOnly: z.boolean().default(false),
      days: z.number().int().min(1).max(365).default(90),
    }),
    reply: z.object({ id: Id, token: z.string(), readOnly: z.boolean(), expiresAt: DateTime, mcpUrl: z.url() }),
    errors: [403],
  }),
};
