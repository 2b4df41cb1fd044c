import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { routes, type Operation, type RouteDef } from '@demo-rooms/contract';
import { connectorToolNames, connectorTools, toolAreas, type ToolName } from './connector-tools.js';
import { jsonSchemaOf } from './tool-json-schema.js';

// The connector's catalog (issue 29): every action of every tool, with its strict input schema
// and its reply's schema, and the compact tool list an assistant holds. A tool publishes its
// actions as an `action` enum, the union of their arguments and one line per action naming the
// arguments it takes; an action's exact input and reply schemas are one `help` call away, so the
// whole contract stays reachable while `tools/list` stays small (tested under 40 KB).

type Json = Record<string, unknown>;

export interface ActionSpec {
  tool: ToolName;
  /** null for a tool with one action (`whoami`), which takes no `action` argument. */
  action: string | null;
  /** The contract's operation (or `checkManifest`, which the connector answers itself). */
  operation: Operation | 'checkManifest';
  summary: string;
  hint?: string;
  def?: RouteDef;
  /** Strict: an argument it does not name is refused (the HTTP API ignores one; spec 1). */
  input: z.ZodObject;
  reply: z.ZodType;
  changes: boolean;
  /** Shows an address: refused on a read-only connection although it changes nothing. */
  revealsAddress: boolean;
}

const revealsAnAddress = new Set<string>(['createLink', 'revealLink', 'reissueLink', 'previewPass', 'communityPass']);

/** The operation's parts as one input object: a body that is not an object goes under `body`. */
function inputOf(def: RouteDef): z.ZodObject {
  const shape: Record<string, z.ZodType> = { ...(def.params?.shape ?? {}), ...(def.query?.shape ?? {}) };
  if (def.body instanceof z.ZodObject) Object.assign(shape, def.body.shape);
  else if (def.body) shape.body = def.body;
  return z.strictObject(shape);
}

const manifestCheck = z.object({
  ok: z.boolean(),
  problems: z.array(z.object({ path: z.string(), message: z.string() })),
  notes: z.array(z.object({ code: z.string(), message: z.string() })),
});

export const actions: ActionSpec[] = [
  {
    tool: 'validate',
    action: null,
    operation: 'checkManifest',
    summary: toolAreas.validate.about,
    input: z.strictObject({ manifest: z.unknown().describe('the parsed pitch.json document') }),
    reply: manifestCheck,
    changes: false,
    revealsAddress: false,
  },
  ...(Object.entries(connectorTools) as [Operation, (typeof connectorTools)[Operation]][]).flatMap(([operation, choice]): ActionSpec[] => {
    if (!('tool' in choice)) return [];
    const def = routes[operation] as RouteDef;
    return [
      {
        tool: choice.tool,
        action: choice.action,
        operation,
        summary: def.summary,
        hint: choice.hint,
        def,
        input: inputOf(def),
        reply: def.reply ?? z.null(),
        changes: def.method !== 'GET',
        revealsAddress: revealsAnAddress.has(operation),
      },
    ];
  }),
];

export const actionName = (a: ActionSpec) => (a.action ? `${a.tool} ${a.action}` : a.tool);
export const actionsOf = (tool: string) => actions.filter((a) => a.tool === tool);
export const argumentNames = (a: ActionSpec) => Object.keys(a.input.shape);

/** `projectId, viewerName, viewerEmail?`: the arguments an action takes, optional ones marked. */
function signature(a: ActionSpec): string {
  const schema = jsonSchemaOf(a.input, 'input') as { required?: string[] };
  const required = new Set(schema.required ?? []);
  return argumentNames(a)
    .map((n) => (required.has(n) ? n : `${n}?`))
    .join(', ');
}

/** One schema per argument name across a tool's actions: the same one, or any of the distinct ones. */
function mergedProperties(list: ActionSpec[]): Record<string, Json> {
  const seen = new Map<string, Map<string, Json>>();
  for (const a of list) {
    const props = (jsonSchemaOf(a.input, 'input').properties ?? {}) as Record<string, Json>;
    for (const [name, schema] of Object.entries(props)) {
      const distinct = seen.get(name) ?? new Map<string, Json>();
      distinct.set(JSON.stringify(schema), schema);
      seen.set(name, distinct);
    }
  }
  return Object.fromEntries(
    [...seen].map(([name, distinct]) => {
      const schemas = [...distinct.values()];
      return [name, schemas.length === 1 ? schemas[0]! : { anyOf: schemas }];
    }),
  );
}

const destructive = (a: ActionSpec) => a.changes && /remove|revoke|delete|reset|reissue/i.test(a.operation);

/** The reply, whichever action answered: its exact schema is `help`'s to give. */
const anyResult: Json = {
  type: 'object',
  properties: { result: { description: "the action's reply (null when it has none); help gives its schema" } },
  required: ['result'],
};

function toolOf(name: ToolName): Tool {
  const list = actionsOf(name);
  const area = toolAreas[name];
  const one = list.length === 1 ? list[0]! : undefined;
  const lines = one
    ? [area.about, one.hint, `Arguments: ${signature(one) || 'none'}.`]
    : [
        area.about,
        'Actions (arguments; ? optional):',
        ...list.map((a) => `- ${a.action} (${signature(a)}): ${a.summary}${a.hint ? ` ${a.hint}` : ''}`),
      ];
  const properties = mergedProperties(list);
  const inputSchema = {
    type: 'object' as const,
    properties: one ? properties : { action: { type: 'string', enum: list.map((a) => a.action) }, ...properties },
    ...(one ? { required: (jsonSchemaOf(one.input, 'input').required as string[] | undefined) ?? [] } : { required: ['action'] }),
    additionalProperties: false,
  };
  const reads = list.every((a) => !a.changes);
  return {
    name,
    title: name[0]!.toUpperCase() + name.slice(1),
    description: [...lines, area.cli ? `Same as \`${area.cli}\`.` : ''].filter(Boolean).join('\n'),
    inputSchema,
    outputSchema: anyResult as Tool['outputSchema'],
    annotations: { readOnlyHint: reads, destructiveHint: list.some(destructive), openWorldHint: false },
  };
}

const helpTool: Tool = {
  name: 'help',
  title: 'Help',
  description:
    "The exact input and reply schemas of a tool's actions, with the HTTP route each calls. Without arguments: every tool and its actions. Same as `pitch help <command>`.",
  inputSchema: {
    type: 'object',
    properties: { tool: { type: 'string', enum: [...connectorToolNames] }, action: { type: 'string' } },
    additionalProperties: false,
  },
  outputSchema: anyResult as Tool['outputSchema'],
  annotations: { readOnlyHint: true, destructiveHint: false, openWorldHint: false },
};

/** What `tools/list` answers: made once, the same for every connection. */
export const connectorToolList: Tool[] = [...connectorToolNames.map(toolOf), helpTool];

/** An action in full: what `help` answers for it. */
export function describeAction(a: ActionSpec) {
  return {
    tool: a.tool,
    ...(a.action ? { action: a.action } : {}),
    summary: a.summary,
    ...(a.hint ? { hint: a.hint } : {}),
    changes: a.changes,
    ...(a.def ? { route: `${a.def.method} ${a.def.path}`, operation: a.operation } : {}),
    input: jsonSchemaOf(a.input, 'input'),
    reply: jsonSchemaOf(a.reply, 'output'),
  };
}
