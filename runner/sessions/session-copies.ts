import { prepareBuild } from './build-prepare.js';
import { createSessionCalls } from './session-calls.js';
import { createSessionEntry, type SessionEntryDeps } from './session-entry.js';

// What the runner's HTTP API does for viewer sessions (app.ts): enter, watch and activity
// (session-entry.ts), calls and leave (session-calls.ts), and preparing a build that went live
// (build-prepare.ts).

export function createSessionCopies(deps: SessionEntryDeps) {
  return {
    ...createSessionEntry(deps),
    ...createSessionCalls(deps.ctx),
    prepare: (buildId: string, waitMs?: number) => prepareBuild(deps.ctx, deps.passes.topUp, buildId, waitMs),
  };
}
