import type { FastifyRequest } from 'fastify';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { CONTRACT_VERSION } from '@demo-rooms/contract/openapi';
import type { Deps } from '../api-deps.js';
import { platformHandlers } from '../platform.handlers.js';
import type { Auth } from '../routing/request-auth.js';
import { registerConnectorTools } from './connector-calls.js';

// The platform as an MCP server (issues 20 and 29), made for one request of one connection: the
// contract's operations as a few tools named like the `pitch` commands (connector-tools.ts), a
// manifest check, and the manifest's JSON Schema and the OpenAPI document as resources.

export function connectorServer(deps: Deps, auth: Auth, req: FastifyRequest): McpServer {
  const server = new McpServer(
    { name: 'demo-rooms', title: 'Demo rooms', version: CONTRACT_VERSION },
    {
      instructions:
        "Demo rooms: deploy checks, projects and builds, private links, the room, visits, comments, the pipeline and analytics of the workspace this connection acts for (whoami tells which). Each tool is a `pitch` command or a web app area; its actions are listed in its description, and help gives any action's exact schemas. Days are UTC dates YYYY-MM-DD.",
    },
  );
  registerConnectorTools(server, { deps, auth, req });

  const documents = [
    {
      name: 'manifest-schema',
      path: '/api/manifest.schema.json',
      title: 'The JSON Schema of pitch.json',
      read: platformHandlers.manifestSchema,
    },
    { name: 'openapi', path: '/api/openapi.json', title: 'The platform API (OpenAPI 3.1)', read: platformHandlers.openapi },
  ];
  for (const d of documents) {
    const uri = deps.config.publicUrl + d.path;
    server.registerResource(d.name, uri, { title: d.title, mimeType: 'application/json' }, async () => ({
      contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(await (d.read as (ctx: unknown) => unknown)({ deps })) }],
    }));
  }
  return server;
}
