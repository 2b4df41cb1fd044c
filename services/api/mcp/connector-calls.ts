import type { FastifyReply, FastifyRequest } from 'fastify';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { checkManifest, manifestNotes } from '@demo-rooms/contract/manifest';
import { Refusal, roleCannot } from '../../core/rules/errors.js';
import type { Deps } from '../api-deps.js';
import { handlers } from '../handlers.js';
import type { Auth } from '../routing/request-auth.js';
import { closestName } from './closest-name.js';
import { connectorToolNames, toolAreas } from './connector-tools.js';
import { actionName, actionsOf, argumentNames, connectorToolList, describeAction, type ActionSpec } from './tool-catalog.js';

// The connector's tools answered (issues 20 and 29). An action calls the very handler its HTTP
// route calls, with the connection's session: the same workspace scoping, plan limits and
// refusals, which come back as tool errors carrying the spec's status and body. Unlike the HTTP
// API, which ignores a field it does not name (spec 1), an action refuses an argument it does not
// take and names the one that was probably meant: an assistant that guessed `expiresIn` must hear
// so, not get a link that never expires. The tools are answered here, below the SDK's McpServer
// (which would publish zod's JSON Schema and strip unknown keys), so that what is listed and what
// is checked are the catalog's own.

interface Connection {
  deps: Deps;
  auth: Auth;
  req: FastifyRequest;
}
type Issue = { path: string; message: string };

/** A tool error with the refusal's body, as the HTTP api would have answered it. */
export function refusalResult(status: number, body: Record<string, unknown>): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: JSON.stringify({ status, ...body }) }] };
}

const invalidArguments = (issues: Issue[]) => refusalResult(400, { error: 'invalid', issues });

export const resultOf = (value: unknown): CallToolResult => ({
  content: [{ type: 'text', text: JSON.stringify(value) }],
  structuredContent: { result: value },
});

/** "did you mean" for an unknown name, with the names there are. */
function unknownName(what: string, name: string, known: readonly string[]): string {
  const near = closestName(name, known);
  return `${what} "${name}"${near ? `: did you mean "${near}"?` : ''} (${known.length ? `known: ${known.join(', ')}` : 'it takes none'})`;
}

/** The arguments `spec` does not take, each named with the one probably meant. */
function unknownArguments(spec: ActionSpec, args: Record<string, unknown>): Issue[] {
  const known = argumentNames(spec);
  return Object.keys(args)
    .filter((k) => !known.includes(k))
    .map((k) => ({ path: k, message: unknownName(`${actionName(spec)} takes no argument`, k, known) }));
}

export function registerConnectorTools(server: McpServer, connection: Connection) {
  server.server.registerCapabilities({ tools: {} });
  server.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: connectorToolList }));
  server.server.setRequestHandler(CallToolRequestSchema, (request) =>
    callTool(request.params.name, request.params.arguments ?? {}, connection),
  );
}

async function callTool(name: string, args: Record<string, unknown>, connection: Connection): Promise<CallToolResult> {
  if (name === 'help') return help(args);
  const list = actionsOf(name);
  if (!list.length) throw new McpError(ErrorCode.InvalidParams, unknownName('no tool', name, [...connectorToolNames, 'help']));
  if (list.length === 1) {
    const issues = unknownArguments(list[0]!, args);
    return issues.length ? invalidArguments(issues) : run(list[0]!, args, connection);
  }
  const { action, ...rest } = args;
  const names = list.map((a) => a.action!);
  if (typeof action !== 'string')
    return invalidArguments([{ path: 'action', message: `${name} needs an action, one of: ${names.join(', ')}` }]);
  const spec = list.find((a) => a.action === action);
  if (!spec) return invalidArguments([{ path: 'action', message: unknownName(`${name} has no action`, action, names) }]);
  const issues = unknownArguments(spec, rest);
  return issues.length ? invalidArguments(issues) : run(spec, rest, connection);
}

function help(args: Record<string, unknown>): CallToolResult {
  const extra = Object.keys(args).filter((k) => k !== 'tool' && k !== 'action');
  if (extra.length)
    return invalidArguments(extra.map((k) => ({ path: k, message: unknownName('help takes no argument', k, ['tool', 'action']) })));
  const { tool, action } = args as { tool?: unknown; action?: unknown };
  if (tool === undefined) {
    return resultOf(
      connectorToolNames.map((t) => ({
        tool: t,
        about: toolAreas[t].about,
        actions: actionsOf(t).flatMap((a) => (a.action ? [a.action] : [])),
      })),
    );
  }
  const list = typeof tool === 'string' ? actionsOf(tool) : [];
  if (!list.length) return invalidArguments([{ path: 'tool', message: unknownName('no tool', String(tool), connectorToolNames) }]);
  if (action === undefined) return resultOf(list.map(describeAction));
  const spec = list.find((a) => a.action === action);
  const names = list.flatMap((a) => (a.action ? [a.action] : []));
  return spec
    ? resultOf(describeAction(spec))
    : invalidArguments([{ path: 'action', message: unknownName(`${tool} has no action`, String(action), names) }]);
}

/** Handlers of JSON routes only set headers on the reply; the connector's reply has none to set. */
const headerlessReply = {
  header() {
    return this;
  },
  status() {
    return this;
  },
  sent: false,
} as unknown as FastifyReply;

/** The operation's parts from the one argument object: a body that is not an object is `body`. */
function partsOf(spec: ActionSpec, args: Record<string, unknown>) {
  const def = spec.def!;
  const pick = (schema: z.ZodObject | undefined) =>
    schema ? Object.fromEntries(Object.keys(schema.shape).map((k) => [k, args[k]])) : undefined;
  return {
    params: def.params ? def.params.parse(pick(def.params)) : undefined,
    query: def.query ? def.query.parse(pick(def.query)) : undefined,
    body: def.body ? def.body.parse(def.body instanceof z.ZodObject ? pick(def.body) : args.body) : undefined,
  };
}

async function run(spec: ActionSpec, args: Record<string, unknown>, { deps, auth, req }: Connection): Promise<CallToolResult> {
  try {
    if (spec.operation === 'checkManifest') {
      const check = checkManifest(args.manifest);
      return resultOf(
        check.ok ? { ok: true, problems: [], notes: manifestNotes(check.manifest) } : { ok: false, problems: check.problems, notes: [] },
      );
    }
    if (auth.readOnly && (spec.changes || spec.revealsAddress)) throw roleCannot('read-only connection');
    const handler = handlers[spec.operation] as (ctx: unknown) => Promise<unknown>;
    const out = await handler({ ...partsOf(spec, args), auth, deps, req, reply: headerlessReply });
    // Checked against the contract before it leaves, as every HTTP reply is.
    const checked = spec.def?.reply ? spec.def.reply.safeParse(out) : { success: true as const, data: null };
    if (!checked.success) throw new Error(`${spec.operation}'s reply does not fit the contract: ${checked.error.message}`);
    return resultOf(checked.data);
  } catch (err) {
    if (err instanceof Refusal) return refusalResult(err.status, err.body());
    if (err instanceof z.ZodError) return invalidArguments(err.issues.map((i) => ({ path: i.path.join('.'), message: i.message })));
    deps.log.error({ err, operation: spec.operation }, 'connector tool failed');
    return refusalResult(500, { error: 'internal error' });
  }
}
