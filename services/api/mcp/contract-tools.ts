import type { FastifyReply, FastifyRequest } from 'fastify';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { routes, type Operation } from '../../contract/routes/route-table.js';
import type { RouteDef } from '../../contract/route.js';
import { Refusal, roleCannot, unavailable } from '../../core/errors.js';
import type { Deps } from '../api-deps.js';
import { handlers } from '../handlers.js';
import type { Auth } from '../routing/request-auth.js';
import { connectorTools } from './connector-tools.js';

// The contract's operations as MCP tools: each tool's input is the operation's path parameters,
// query and body in one object, its output the operation's reply, and its call the very handler
// the HTTP route calls, with the connection's session: the same workspace scoping, plan limits
// and refusals. A refusal comes back as a tool error carrying the spec's status, `error` and
// `reason`.

/** Actions a read-only connection may not take although they change nothing: they show an address. */
const revealsAnAddress = new Set<Operation>(['createLink', 'revealLink', 'reissueLink', 'previewPass', 'communityPass']);

/** A tool error with the refusal's body, as the HTTP api would have answered it. */
export function refusalResult(status: number, body: Record<string, unknown>): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: JSON.stringify({ status, ...body }) }] };
}

export const resultOf = (value: unknown): CallToolResult => ({
  content: [{ type: 'text', text: JSON.stringify(value) }],
  structuredContent: { result: value },
});

/** The operation's parts as one input object: a body that is not an object goes under `body`. */
function inputSchemaOf(def: RouteDef): z.ZodObject {
  const shape: Record<string, z.ZodType> = { ...(def.params?.shape ?? {}), ...(def.query?.shape ?? {}) };
  if (def.body instanceof z.ZodObject) Object.assign(shape, def.body.shape);
  else if (def.body) shape.body = def.body;
  return z.object(shape);
}

function partsOf(def: RouteDef, args: Record<string, unknown>) {
  const pick = (schema: z.ZodObject | undefined) => (schema ? Object.fromEntries(Object.keys(schema.shape).map((k) => [k, args[k]])) : undefined);
  const body = def.body instanceof z.ZodObject ? pick(def.body) : def.body ? args.body : undefined;
  return { params: pick(def.params), query: pick(def.query), body };
}

/** Handlers of JSON routes only set headers on the reply; the connector's reply has none to set. */
const headerlessReply = { header() { return this; }, status() { return this; }, sent: false } as unknown as FastifyReply;

/**
 * Each tool's name, description and schemas, made once from the route table: the server itself
 * is made anew for every request (stateless), its tools' definitions need not be.
 */
const toolSpecs = (Object.entries(connectorTools) as [Operation, (typeof connectorTools)[Operation]][]).flatMap(([operation, choice]) => {
  if (!('tool' in choice)) return [];
  const def = routes[operation] as RouteDef;
  const changes = def.method !== 'GET';
  const config = {
    title: operation,
    description: [def.summary, choice.hint, `(${def.method} ${def.path})`].filter(Boolean).join(' '),
    inputSchema: inputSchemaOf(def),
    outputSchema: z.object({ result: def.reply ?? z.null() }),
    annotations: { readOnlyHint: !changes, destructiveHint: changes && /remove|revoke|delete|reset/i.test(operation), openWorldHint: false },
  };
  return [{ name: choice.tool, operation, def, changes, config }];
});

export function registerContractTools(server: McpServer, deps: Deps, auth: Auth, req: FastifyRequest) {
  for (const { name, operation, def, changes, config } of toolSpecs) {
    server.registerTool(name, config, async (args: Record<string, unknown>) => {
      try {
        if (auth.readOnly && (changes || revealsAnAddress.has(operation))) throw roleCannot('read-only connection');
        const handler = handlers[operation] as ((ctx: unknown) => Promise<unknown>) | undefined;
        if (!handler) throw unavailable(`${operation} is not switched on yet`);
        const parts = partsOf(def, args);
        const parsed = {
          params: def.params ? def.params.parse(parts.params) : undefined,
          query: def.query ? def.query.parse(parts.query) : undefined,
          body: def.body ? def.body.parse(parts.body) : undefined,
        };
        const out = await handler({ ...parsed, auth, deps, req, reply: headerlessReply });
        // Checked against the contract before it leaves, as every HTTP reply is.
        const checked = def.reply ? def.reply.safeParse(out) : { success: true as const, data: null };
        if (!checked.success) throw new Error(`${operation}'s reply does not fit the contract: ${checked.error.message}`);
        return resultOf(checked.data);
      } catch (err) {
        if (err instanceof Refusal) return refusalResult(err.status, err.body());
        if (err instanceof z.ZodError) return refusalResult(400, { error: 'invalid', issues: err.issues.map((i) => ({ path: i.path.join('.'), message: i.message })) });
        deps.log.error({ err, operation }, 'connector tool failed');
        return refusalResult(500, { error: 'internal error' });
      }
    });
  }
}
