import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Deps } from '../api-deps.js';
import { resolveSession } from '../../data/sessions.sql.js';
import { credentialOf, type Auth } from '../routing/request-auth.js';
import { connectorServer } from './connector-server.js';

// The connector's transport (issue 20): MCP over Streamable HTTP at /mcp, stateless (each POST
// is answered on its own, so any api process can take any request), JSON replies. Only a
// connector token opens it; anything else is 401 with the WWW-Authenticate header the MCP
// authorization specification asks for, pointing at this resource's metadata (RFC 9728).

import { MCP_PATH } from './mcp-path.js';
const METADATA_PATH = '/.well-known/oauth-protected-resource';

export function registerConnector(app: FastifyInstance, deps: Deps) {
  const resource = () => deps.config.publicUrl + MCP_PATH;
  const metadata = () => ({
    resource: resource(),
    resource_name: 'Demo rooms connector',
    bearer_methods_supported: ['header'],
    resource_documentation: `${deps.config.publicUrl}/api/openapi.json`,
  });
  for (const path of [METADATA_PATH, METADATA_PATH + MCP_PATH]) app.get(path, async () => metadata());

  /** The connection's session, or a 401 sent. A cookie never opens the connector. */
  async function connection(req: FastifyRequest, reply: FastifyReply): Promise<Auth | null> {
    const cred = credentialOf(req);
    const session = cred?.via === 'bearer' ? await resolveSession(deps.sql, cred.token) : null;
    if (session?.kind === 'connector') return { ...session, via: 'bearer' };
    const why = cred?.via === 'bearer' ? ', error="invalid_token", error_description="a connector token is needed"' : '';
    reply
      .status(401)
      .header('www-authenticate', `Bearer resource_metadata="${deps.config.publicUrl}${METADATA_PATH}${MCP_PATH}"${why}`)
      .send({ error: 'sign in first', detail: 'the connector takes a connector token (Authorization: Bearer pp_con_…)' });
    return null;
  }

  app.post(MCP_PATH, async (req, reply) => {
    const auth = await connection(req, reply);
    if (!auth) return reply;
    const server = connectorServer(deps, auth, req);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    reply.raw.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    reply.hijack();
    await transport.handleRequest(req.raw, reply.raw, req.body);
  });

  // Stateless: no stream to open and no session to end.
  for (const method of ['GET', 'DELETE'] as const) {
    app.route({
      method,
      url: MCP_PATH,
      handler: async (req, reply) => {
        if (!(await connection(req, reply))) return reply;
        return reply
          .status(405)
          .header('allow', 'POST')
          .send({ error: 'method not allowed', detail: 'this connector is stateless: POST JSON-RPC messages' });
      },
    });
  }
}
