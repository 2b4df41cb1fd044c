// A copy as an engine runs it, `@demo-rooms/contract/copy`: its labels and spec, the container
// create options, the engine's log frames. The pitch tool's rehearsal holds its local copy to
// the runner's hardening through these, and imports nothing else of the runner's: the runner's
// barrel (runner.ts) also loads its HTTP API and clients (undici), about 0.15 s of a redeploy's
// start that the tool never uses (issue 48).
export * from './copy-labels.js';
export * from './copy-spec.js';
export * from './log-frames.js';
export * from './docker-create-options.js';
