import { z } from 'zod';
import { crossFieldProblems } from './manifest.rules.js';
import { ROOM_PAGES_MAX } from '../resources/room-setup.js';

// The build manifest `pitch.json`, spec 2.1. Every object is strict: the spec allows no field
// other than those listed. Lengths are JavaScript string lengths (UTF-16 code units).

export const APP_ID_PATTERN = /^[a-z][a-z0-9-]{0,39}$/;
export const APP_PATH_PATTERN = /^\/(?![/\\])[^\s\\]*$/;
export const CALL_PATTERN = /^(GET|POST|PUT|PATCH|DELETE) \/\S*$/;
export const ENV_KEY_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;
export const HEALTH_PATTERN = /^\/.*/;
export const PAGE_PATTERN = /\.(md|html)$/;

// Apps, scenarios and steps share the id pattern; unique in each list: see manifest.rules.ts.
const AppId = z.string().regex(APP_ID_PATTERN, 'must be a lower-case letter followed by at most 39 lower-case letters, digits or hyphens');

const AppPath = z.string().regex(APP_PATH_PATTERN, 'must start with a single / and contain no spaces or backslashes');

export const Device = z.enum(['phone', 'tablet', 'laptop', 'screen', 'none']);
export type Device = z.infer<typeof Device>;

export const Call = z
  .string()
  .regex(CALL_PATTERN, 'must be a call: GET, POST, PUT, PATCH or DELETE, one space, then a path starting with / and no spaces')
  .describe('A call on the build, `METHOD /path`.');
export type Call = z.infer<typeof Call>;

/**
 * Any JSON value; registered by name so the JSON Schema's recursive definition reads well.
 * Like every zod record, a parsed object drops a `__proto__` key (prototype safety).
 */
const JsonValue: z.ZodType<z.core.util.JSONType> = z
  .lazy(() => z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(JsonValue), z.record(z.string(), JsonValue)]))
  .register(z.globalRegistry, { id: 'ManifestJsonValue' });

export const JsonObject = z.record(z.string(), JsonValue).describe("A JSON object, sent as the call's body.");
export type JsonObject = z.infer<typeof JsonObject>;

export const App = z.strictObject({
  id: AppId.describe('Unique in apps.'),
  name: z.string().min(1).max(60).describe('The tab name.'),
  path: AppPath.describe("Where the app is served on the build's own origin."),
  device: Device.describe('The frame the app is drawn in.'),
  default: z.boolean().optional().describe('True on the app opened first; at most one app.'),
});
export type App = z.infer<typeof App>;

export const Scenario = z.strictObject({
  id: AppId.describe('Unique in scenarios.'),
  label: z.string().min(1).max(60),
  description: z.string().max(200).optional(),
  call: Call,
  body: JsonObject.optional(),
});
export type Scenario = z.infer<typeof Scenario>;

export const Controls = z.strictObject({
  reset: Call.optional(),
  scenarios: z.array(Scenario).max(20).optional(),
});
export type Controls = z.infer<typeof Controls>;

export const StepCall = z.union([Call, z.strictObject({ call: Call, body: JsonObject.optional() })], {
  error: 'must be a call string or an object with call and an optional body',
});
export type StepCall = z.infer<typeof StepCall>;

/** A field of the other kind of build: present at all is a problem that says whose field it is. */
function otherKindOnly(message: string) {
  return z.never({ error: message }).optional().describe(message);
}

export const Step = z.strictObject({
  id: AppId.describe('Unique in the story.'),
  title: z.string().min(1).max(60),
  say: z.string().min(1).max(300),
  app: z.string().describe('The id of an app declared in apps.'),
  path: AppPath.max(500).optional().describe('The page the step opens.'),
  device: Device.optional().describe('Applies to this step only.'),
  run: z.array(StepCall).min(1).max(8).optional().describe("Calls made in order on the viewer's copy before the step shows."),
  point: z.string().min(1).max(200).optional().describe('A CSS selector to ring; best effort.'),
});
export type Step = z.infer<typeof Step>;

// Rule 7 (a step's run on a static build) is a field of its own here, so that the JSON Schema
// says it too and the problem's path is `story[i].run`.
export const StaticStep = z.strictObject({
  ...Step.shape,
  run: otherKindOnly("a step's run is only for a container build"),
});
export type StaticStep = z.infer<typeof StaticStep>;

export const ContainerRun = z.strictObject({
  start: z.array(z.string().min(1).max(1000)).min(1).max(64).describe('The command that starts the build in /app, exec-form.'),
  env: z
    .record(z.string().regex(ENV_KEY_PATTERN, 'must be letters, digits and underscores, not starting with a digit'), z.string().max(4000))
    .optional()
    .describe('Mock settings only, never secrets; the runner sets PORT and HOST.'),
});
export type ContainerRun = z.infer<typeof ContainerRun>;

// Fields of both kinds, placed in each variant in the spec's order.
const name = z.string().min(1).max(80).describe("The demo's name; the project's address is made from it.");
const apps = z.array(App).min(1).max(12);
const pages = z
  .array(z.string().regex(PAGE_PATTERN, 'must end in .md or .html'))
  .max(ROOM_PAGES_MAX)
  .optional()
  .describe('Page files, relative to pitch.json.');
const $schema = z.string().optional().describe('Ignored by the platform.');
// Issue 34, personalised copies: opt-in, since a viewer's name is theirs to give and the
// builder's to ask for. Off, nothing of the viewer reaches the build.
const personalise = z
  .boolean()
  .optional()
  .describe(
    "True: the room tells the build who is viewing. A container copy gets the viewer's name and company as the request headers X-Demo-Viewer-Name and X-Demo-Viewer-Company (percent-encoded UTF-8); a static build's pages may load /__pp/viewer.js for window.demoViewer. Absent or false: nothing is passed.",
  );

export const ContainerManifest = z.strictObject({
  kind: z.literal('container'),
  name,
  apps,
  controls: Controls.optional(),
  story: z.array(Step).min(1).max(20).optional(),
  pages,
  health: z
    .string()
    .regex(HEALTH_PATTERN, 'must start with /')
    .default('/healthz')
    .describe('A path that answers 200 once the server is up.'),
  run: ContainerRun.optional().describe('Optional here; the platform requires it on a container build.'),
  output: otherKindOnly('output is only for a static build'),
  personalise,
  $schema,
});
export type ContainerManifest = z.infer<typeof ContainerManifest>;

// Rule 4 (controls on a static build) is a field of its own for the same reason as StaticStep.
export const StaticManifest = z.strictObject({
  kind: z.literal('static'),
  name,
  apps,
  controls: otherKindOnly('controls are only for a container build'),
  story: z.array(StaticStep).min(1).max(20).optional(),
  pages,
  health: otherKindOnly('health is only for a container build'),
  run: otherKindOnly('run is only for a container build'),
  output: z.string().min(1).describe('The folder the build writes, relative to pitch.json, with an index.html in it.'),
  personalise,
  $schema,
});
export type StaticManifest = z.infer<typeof StaticManifest>;

function isKnownKind(value: unknown): boolean {
  const kind = (value as { kind?: unknown } | null)?.kind;
  return kind === 'container' || kind === 'static';
}

function manifestSchema(requireRun: boolean) {
  return z.discriminatedUnion('kind', [ContainerManifest, StaticManifest]).superRefine(
    (value, ctx) => {
      for (const problem of crossFieldProblems(value, { requireRun })) {
        ctx.addIssue({ code: 'custom', path: [...problem.path], message: problem.message });
      }
    },
    // Run the cross-field rules even when a field is wrong, so one pass reports everything;
    // only an unknown kind leaves nothing to compare.
    { when: (payload) => isKnownKind(payload.value) },
  );
}

/** The manifest as the platform takes it: a container build must carry `run`. */
export const Manifest = manifestSchema(true);
export type Manifest = z.infer<typeof Manifest>;

/** pitch.json as a builder writes it, before the command-line tool fills a container's `run`. */
export const ManifestFile = manifestSchema(false);
export type ManifestFile = z.infer<typeof ManifestFile>;
