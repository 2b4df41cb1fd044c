import { z } from 'zod';
import { Manifest } from './manifest.schema.js';

/** Where the platform serves the schema (spec: GET /api/manifest.schema.json). */
export const MANIFEST_SCHEMA_PATH = '/api/manifest.schema.json';

let cached: Record<string, unknown> | undefined;

/**
 * The JSON Schema (draft 2020-12) of pitch.json, generated from the zod schema so the two
 * cannot drift. It holds every per-field rule, including controls and a step's run being
 * container-only (rules 4 and 7). It cannot hold the rules that compare fields (unique ids,
 * one default app, a step's app declared in apps) nor the platform's need for `run` on a
 * container build: checkManifest adds those. Defaulted fields (health) are optional, as a
 * builder writes them. `baseUrl` (the platform's public address) makes `$id` absolute.
 */
export function manifestJsonSchema(options: { baseUrl?: string } = {}): Record<string, unknown> {
  cached ??= z.toJSONSchema(Manifest, { target: 'draft-2020-12', io: 'input', unrepresentable: 'throw' }) as Record<string, unknown>;
  const { $schema, ...body } = structuredClone(cached);
  return {
    $schema,
    $id: options.baseUrl ? new URL(MANIFEST_SCHEMA_PATH, options.baseUrl).href : MANIFEST_SCHEMA_PATH,
    title: 'pitch.json',
    description:
      "The build manifest of a demo room. Also checked by the platform: ids unique in apps, scenarios and the story; at most one default app; each step's app declared in apps; a container build carries run.",
    ...body,
  };
}
