import { RunnerRefusal } from '@demo-rooms/contract/runner';
import { recordEvidence } from '../../data/link-evidence.sql.js';
import { sessionStanding } from '../../data/room-sessions.sql.js';
import { copyNotice } from '../viewer-copies/copy-states.js';
import { storyCalls } from '../viewer-copies/story-calls.js';
import type { RoomEvidence } from './room-evidence.js';
import type { ShellHandlers } from './shell-routes.js';
import type { ViewerDeps } from './room-entry.routes.js';

// Controls and story steps run on the viewer's own copy, in order, before the step shows. The
// shell names what to run; the calls themselves come from the live manifest, never the browser.

export function runHandlers({ sql, runner }: ViewerDeps, evidence: RoomEvidence): Pick<ShellHandlers, 'shellRun'> {
  return {
    async shellRun({ session, body: ask, req, reply }) {
      const standing = await sessionStanding(sql, session.id);
      if (!standing?.manifest) return reply.status(404).send({ error: 'not found' });
      const calls = storyCalls(standing.manifest, ask);
      if (calls === null) return reply.status(404).send({ error: 'not found' });
      // A story step taken or a scenario tried is engagement (link-evidence.sql.ts); a preview records nothing.
      if (!session.preview) {
        await recordEvidence(sql, session.linkId, 'engaged');
        await evidence.events(session, req, [
          'step' in ask ? { kind: 'step', subject: ask.step } : { kind: 'scenario', subject: 'scenario' in ask ? ask.scenario : 'reset' },
        ]);
      }
      if (!calls.length || standing.kind !== 'container') return { ok: true };
      try {
        const { copy, outcomes } = await runner.calls(session.id, calls);
        const ok = outcomes.every((o) => o.ok);
        // Which calls ran and what they answered is the builder's: their own preview shows it, and
        // a failed call is logged; a viewer's room hears only whether it worked.
        if (!ok) req.log.warn({ session: session.id, failed: outcomes.filter((o) => !o.ok).map((o) => o.call) }, 'room run: a call failed');
        return { ok, ...(session.preview ? { outcomes } : {}), copy: copyNotice(copy) };
      } catch (err) {
        // The copy stopped (it crashed, or was culled) before the calls: say so in the room's words.
        if (err instanceof RunnerRefusal && err.copy) return { ok: false, copy: copyNotice(err.copy) };
        throw err;
      }
    },
  };
}
