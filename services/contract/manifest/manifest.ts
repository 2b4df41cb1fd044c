// The build manifest (pitch.json, spec 2.1), shared by the platform, the web app and the
// command-line tool: `@demo-rooms/contract/manifest`. Browser-safe; the checks that read the
// folder (node:fs) or lean on node:path are `@demo-rooms/contract/node`.
export {
  App,
  Call,
  ContainerManifest,
  ContainerRun,
  Controls,
  Device,
  JsonObject,
  Manifest,
  Scenario,
  StaticManifest,
  StaticStep,
  Step,
  StepCall,
} from './manifest.schema.js';
export { checkManifest, plainMessage, toProblems, type CheckManifestOptions, type ManifestCheck } from './manifest.check.js';
export { formatPath, type FieldPath, type FolderProblem, type FolderProblemCode, type Problem } from './manifest.problem.js';
export { manifestNotes, NOTE_CODES, type ManifestNote, type NoteCode } from './manifest.notes.js';
export { checkDockerfile, fetchingCommand, looksLikeNode24, type DockerfileCheck } from './dockerfile.check.js';
export { manifestJsonSchema, MANIFEST_SCHEMA_PATH } from './manifest.json-schema.js';
export { dockerfileInstructions, readDockerfile, rootImage } from './dockerfile.parse.js';
