import type { FastifyRequest } from 'fastify';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { checkManifest } from '../../contract/manifest/manifest.check.js';
import { manifestNotes } from '../../contract/manifest/manifest.notes.js';
import { CONTRACT_VERSION } from '../../contract/openapi.js';
import type { Deps } from '../api-deps.js';
import { platformHandlers } from '../platform.handlers.js';
import type { Auth } from '../routing/request-auth.js';
import { registerContractTools, resultOf } from './contract-tools.js';

// The platform as an MCP server (issue 20), made for one request of one connection: the
// contract's tools, a manifest check, and the manifest's JSON Schema and the OpenAPI document as
// resources.

export function connectorServer(deps: Deps, auth: Auth, req: FastifyRequest): McpServer {
  const server = new McpServer(
    { name: 'demo-rooms', title: 'Demo rooms', version: CONTRACT_VERSION },
    { instructions: 'Demo rooms: deploy checks, projects and builds, private links, the room, visits, comments, the pipeline and analytics of the workspace this connection acts for (whoami tells which). Days are UTC dates YYYY-MM-DD.' },
  );
  registerContractTools(server, deps, auth, req);

  server.registerTool('check_manifest', {
    title: 'checkManifest',
    description: "Checks a pitch.json document (the build manifest) as a deploy would, before any bytes move: its problems, each with the field's path, and advisory notes. Changes nothing.",
    inputSchema: z.object({ manifest: z.unknown().describe('the parsed pitch.json document') }),
    outputSchema: z.object({ result: z.object({ ok: z.boolean(), problems: z.array(z.object({ path: z.string(), message: z.string() })), notes: z.array(z.object({ code: z.string(), message: z.string() })) }) }),
    annotations: { readOnlyHint: true, openWorldHint: false },
  }, async ({ manifest }) => {
    const check = checkManifest(manifest);
    return resultOf(check.ok ? { ok: true, problems: [], notes: manifestNotes(check.manifest) } : { ok: false, problems: check.problems, notes: [] });
  });

  const documents = [
    { name: 'manifest-schema', path: '/api/manifest.schema.json', title: 'The JSON Schema of pitch.json', read: platformHandlers.manifestSchema! },
    { name: 'openapi', path: '/api/openapi.json', title: 'The platform API (OpenAPI 3.1)', read: platformHandlers.openapi! },
  ];
  for (const d of documents) {
    const uri = deps.config.publicUrl + d.path;
    server.registerResource(d.name, uri, { title: d.title, mimeType: 'application/json' }, async () => ({
      contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(await (d.read as (ctx: unknown) => unknown)({ deps })) }],
    }));
  }
  return server;
}
