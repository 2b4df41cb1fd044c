import { z } from 'zod';

// JSON Schema of the connector's zod schemas, in the dialect the MCP SDK's clients validate with
// (draft-07, Ajv with ajv-formats). zod writes some checks as a `format` no standard knows
// (`startsWith` becomes `format: "starts_with"` beside its `pattern`), and the SDK client warns
// about every unknown format it meets: only the standard's formats are kept; the pattern, which
// says the same, stays.

type Json = Record<string, unknown>;

/** The formats of JSON Schema (draft 2020-12, validation § 7.3) that ajv-formats knows. */
const standardFormats = new Set([
  'date-time',
  'date',
  'time',
  'duration',
  'email',
  'idn-email',
  'hostname',
  'idn-hostname',
  'ipv4',
  'ipv6',
  'uri',
  'uri-reference',
  'iri',
  'iri-reference',
  'uuid',
  'uri-template',
  'json-pointer',
  'relative-json-pointer',
  'regex',
]);

function standard(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(standard);
  if (!node || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [key, value] of Object.entries(node as Json)) {
    if (key === '$schema') continue;
    if (key === 'format' && typeof value === 'string' && !standardFormats.has(value)) continue;
    out[key] = standard(value);
  }
  return out;
}

/** `schema` as plain JSON Schema with standard keywords only; `io` picks a transform's side. */
export function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output'): Json {
  return standard(z.toJSONSchema(schema, { target: 'draft-7', io, unrepresentable: 'any' })) as Json;
}
