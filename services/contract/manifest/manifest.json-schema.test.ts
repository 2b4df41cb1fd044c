import { Ajv2020 } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkManifest } from './manifest.check.js';
import { arbManifest } from '../../../test/fixtures/manifest/manifest.arbitrary.js';
import { RULE_CASES, containerBase } from '../../../test/fixtures/manifest/manifest.cases.js';
import { MANIFEST_SCHEMA_PATH, manifestJsonSchema } from './manifest.json-schema.js';

// ajv in strict mode also proves the generated schema uses only draft 2020-12 keywords.
const validate = new Ajv2020({ strict: true, allErrors: true }).compile(manifestJsonSchema());

describe('the JSON Schema of pitch.json', () => {
  it('is draft 2020-12 with an id and a title', () => {
    const schema = manifestJsonSchema();
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(schema.$id).toBe(MANIFEST_SCHEMA_PATH);
    expect(schema.title).toBe('pitch.json');
    expect(manifestJsonSchema({ baseUrl: 'https://pitch.example' }).$id).toBe('https://pitch.example/api/manifest.schema.json');
  });

  it('gives each caller its own copy', () => {
    const first = manifestJsonSchema();
    first.title = 'changed';
    expect(manifestJsonSchema().title).toBe('pitch.json');
  });

  it('leaves defaulted fields optional (health)', () => {
    const { health, ...withoutHealth } = { ...containerBase(), health: '/healthz' };
    expect(health).toBe('/healthz');
    expect(validate(withoutHealth)).toBe(true);
  });

  const perField = RULE_CASES.filter((c) => !c.crossField);
  it.each(perField.map((c) => [c.name, c] as const))('agrees with zod: %s', (_name, c) => {
    const zodValid = checkManifest(c.manifest).ok;
    expect(validate(c.manifest)).toBe(zodValid);
    expect(zodValid).toBe(c.paths.length === 0);
  });

  it('cannot say the cross-field rules: it takes what zod refuses for them', () => {
    for (const c of RULE_CASES.filter((c) => c.crossField && c.paths.length > 0)) {
      expect(checkManifest(c.manifest).ok, c.name).toBe(false);
      expect(validate(c.manifest), c.name).toBe(true);
    }
  });

  it('takes every generated valid manifest, as zod does', () => {
    fc.assert(
      fc.property(arbManifest, (manifest) => {
        expect(validate(manifest)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});
