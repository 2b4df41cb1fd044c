import fc from 'fast-check';

// Generators of valid manifests of both kinds, for the property tests and the benchmark. Each
// respects every field rule and cross-field rule 1-7, so a generated manifest must pass.

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
const DEVICES = ['phone', 'tablet', 'laptop', 'screen', 'none'] as const;

export const arbId = fc.stringMatching(/^[a-z][a-z0-9-]{0,39}$/);
const text = (minLength: number, maxLength: number) => fc.string({ minLength, maxLength });
const segment = fc.stringMatching(/^[A-Za-z0-9._~%-]{1,16}$/);
export const arbAppPath = fc
  .tuple(fc.array(segment, { maxLength: 6 }), fc.boolean())
  .map(([parts, slash]) => `/${parts.join('/')}${slash && parts.length > 0 ? '/' : ''}`);
export const arbCall = fc.tuple(fc.constantFrom(...METHODS), arbAppPath).map(([method, path]) => `${method} ${path}`);
const arbDevice = fc.constantFrom(...DEVICES);
// zod drops a `__proto__` key when it parses a record, so a generated one would not round-trip.
const hasProtoKey = (value: unknown): boolean =>
  value !== null &&
  typeof value === 'object' &&
  (Object.prototype.hasOwnProperty.call(value, '__proto__') || Object.values(value).some(hasProtoKey));
const arbJsonObject = fc
  .dictionary(fc.stringMatching(/^[a-z]{1,8}$/), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 })
  .filter((body) => !hasProtoKey(body));

const arbApp = fc.record(
  { id: arbId, name: text(1, 60), path: arbAppPath, device: arbDevice },
  { requiredKeys: ['id', 'name', 'path', 'device'] },
);

/** 1-12 apps with unique ids and at most one default (sometimes `default: false` on others). */
const arbApps = fc
  .tuple(fc.uniqueArray(arbApp, { minLength: 1, maxLength: 12, selector: (app) => app.id }), fc.option(fc.nat()), fc.boolean())
  .map(([apps, defaultAt, explicitFalse]) =>
    apps.map((app, index) => {
      if (defaultAt !== null && index === defaultAt % apps.length) return { ...app, default: true };
      return explicitFalse && index === 0 ? { ...app, default: false } : app;
    }),
  );

const arbStepCall = fc.oneof(arbCall, fc.record({ call: arbCall, body: arbJsonObject }, { requiredKeys: ['call'] }));

function arbStep(withRun: boolean) {
  return fc.record(
    {
      id: arbId,
      title: text(1, 60),
      say: text(1, 300),
      appAt: fc.nat(),
      path: arbAppPath,
      device: arbDevice,
      point: text(1, 200),
      ...(withRun ? { run: fc.array(arbStepCall, { minLength: 1, maxLength: 8 }) } : {}),
    },
    { requiredKeys: ['id', 'title', 'say', 'appAt'] },
  );
}

/** 1-20 steps with unique ids, each naming one of the apps. */
function arbStory(apps: { id: string }[], withRun: boolean) {
  return fc
    .uniqueArray(arbStep(withRun), { minLength: 1, maxLength: 20, selector: (step) => step.id })
    .map((steps) => steps.map(({ appAt, ...step }) => ({ ...step, app: apps[appAt % apps.length].id })));
}

const arbPages = fc.array(
  fc.tuple(fc.stringMatching(/^[a-z0-9_-]{1,12}(\/[a-z0-9_-]{1,12}){0,2}$/), fc.constantFrom('.md', '.html')).map(([p, ext]) => p + ext),
  { maxLength: 30 },
);

const arbScenario = fc.record(
  { id: arbId, label: text(1, 60), description: text(0, 200), call: arbCall, body: arbJsonObject },
  { requiredKeys: ['id', 'label', 'call'] },
);

const arbControls = fc.record(
  { reset: arbCall, scenarios: fc.uniqueArray(arbScenario, { maxLength: 20, selector: (s) => s.id }) },
  { requiredKeys: [] },
);

const arbEnvKey = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,15}$/);
const arbRun = fc.record(
  {
    start: fc.array(text(1, 40), { minLength: 1, maxLength: 64 }),
    env: fc.dictionary(arbEnvKey, text(0, 40), { maxKeys: 6 }),
  },
  { requiredKeys: ['start'] },
);

const arbHealth = fc.tuple(arbAppPath, fc.string({ maxLength: 10 })).map(([path, rest]) => path + rest.replace(/\s/g, ''));

export const arbContainerManifest = arbApps.chain((apps) =>
  fc.record(
    {
      kind: fc.constant('container' as const),
      name: text(1, 80),
      apps: fc.constant(apps),
      controls: arbControls,
      story: arbStory(apps, true),
      pages: arbPages,
      health: arbHealth,
      run: arbRun,
      $schema: fc.constant('https://example.test/api/manifest.schema.json'),
    },
    { requiredKeys: ['kind', 'name', 'apps', 'run'] },
  ),
);

export const arbStaticManifest = arbApps.chain((apps) =>
  fc.record(
    {
      kind: fc.constant('static' as const),
      name: text(1, 80),
      apps: fc.constant(apps),
      story: arbStory(apps, false),
      pages: arbPages,
      output: text(1, 30),
      $schema: fc.constant('./node_modules/pitch/manifest.schema.json'),
    },
    { requiredKeys: ['kind', 'name', 'apps', 'output'] },
  ),
);

export const arbManifest = fc.oneof(arbContainerManifest, arbStaticManifest);
