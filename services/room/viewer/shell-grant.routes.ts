import { mintGrant } from '../../data/content-grants.sql.js';
import { projectById } from '../../data/projects.sql.js';
import { sessionStanding } from '../../data/room-sessions.sql.js';
import { contentOriginOf, sessionLabelOf } from '../origins.js';
import { copyNotice } from '../viewer-copies/copy-states.js';
import { isPublicVisit } from './shell-page.js';
import type { ShellHandlers } from './shell-routes.js';
import type { ViewerDeps } from './room-entry.routes.js';

// A grant to an app's content origin: the frame's way in, once the viewer has said who they are
// (or needs not) and their own copy, for a container build, runs.

export function grantHandlers({ sql, config, runner }: ViewerDeps): Pick<ShellHandlers, 'shellGrant'> {
  return {
    async shellGrant({ session, body, reply }) {
      const project = await projectById(sql, session.projectId);
      if ((!session.viewerName && !isPublicVisit(session)) || (project?.requireEmail && !session.viewerEmail)) {
        return reply.status(403).send({ error: 'who are you first', reason: 'hello' });
      }
      const standing = await sessionStanding(sql, session.id);
      if (!standing) return reply.status(404).send({ error: 'not found' });
      const manifest = standing.manifest;
      const app = manifest?.apps.find((a) => a.id === body.app);
      if (!app) return reply.status(404).send({ error: 'not found' });
      if (standing.kind === 'container') {
        // The viewer's own copy: admitted, started and healthy before any grant to its origin.
        const view = await runner.enter(
          session.id,
          { workspaceId: session.workspaceId, projectId: session.projectId, buildId: standing.liveBuildId! },
          10_000,
        );
        if (view.state !== 'running') return { ...copyNotice(view), state: view.state };
      }
      const label = sessionLabelOf(standing, session.id);
      const grant = await mintGrant(sql, session.id, label);
      const origin = contentOriginOf(config, label);
      return { state: 'ready', origin, url: `${origin}/__pp/enter?g=${encodeURIComponent(grant)}&to=${encodeURIComponent(app.path)}` };
    },
  };
}
