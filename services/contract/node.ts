// The contract's Node-only parts, `@demo-rooms/contract/node`: the checks of a build's folder on
// disk (node:fs, node:path) and the static build's digest (node:crypto). The command-line tool,
// the workers and the api use them; the web app never may (.dependency-cruiser.cjs).
export { checkManifestFolder, PAGE_MAX_CHARS, type FolderCheck } from './manifest/manifest-folder.check.js';
export { checkStaticStepPaths, stepPathCandidates, type OutputFiles } from './manifest/static-paths.check.js';
export { StaticDigest } from './static-digest.js';
