import type { FastifyInstance } from 'fastify';
import type { Storage } from '../../core/infra/storage.js';
import { roomEvidence } from './room-evidence.js';
import { arrivalHandlers } from './shell-arrival.routes.js';
import { beatHandlers } from './shell-beat.routes.js';
import { grantHandlers } from './shell-grant.routes.js';
import type { ShellGuard } from './shell-guard.js';
import { registerShellRoutes } from './shell-routes.js';
import { runHandlers } from './shell-run.routes.js';
import { commentBodyLimit, commentHandlers } from './viewer-voice-comment.routes.js';
import { voiceHandlers } from './viewer-voice.routes.js';
import type { ViewerDeps } from './room-entry.routes.js';

// The endpoints the room shell calls for its session (contract/routes/shell.routes.ts), one file
// per group: arrival and who-are-you, grants to the content origin, controls and story calls, the
// time beacon and leaving, and the viewer's voice.

export function registerShellEndpoints(app: FastifyInstance, deps: ViewerDeps & { storage: Storage }, guard: ShellGuard) {
  const evidence = roomEvidence(deps.sql);
  registerShellRoutes(
    app,
    deps,
    guard,
    {
      ...arrivalHandlers(deps, evidence),
      ...grantHandlers(deps),
      ...runHandlers(deps, evidence),
      ...beatHandlers(deps, evidence, guard),
      ...voiceHandlers(deps, evidence),
      ...commentHandlers(deps, evidence),
    },
    { shellComment: commentBodyLimit(deps.config.SCREENSHOT_MAX_BYTES) },
  );
}
