import type { NextSteps } from '@demo-rooms/contract';
import type { Db } from '../../core/infra/db.js';
import { invalid } from '../../core/rules/errors.js';
import { planOf } from '../../core/rules/plans.js';
import { nextStepsOf, offeredOn, saveNextSteps, StepIncomplete } from '../../data/next-steps.sql.js';
import { projectIn } from '../../data/projects.sql.js';
import { planNameOf } from '../../data/workspaces.sql.js';
import type { HandlerGroup } from '../routing/handler.js';

// What happens next, as the builder sets it (spec 2.7 NextSteps; docs/decisions/viewer-voice.md).
// The plan decides whether the room offers the builder's choice or only a question;
// the choice is kept either way.

async function nextStepsState(sql: Db, project: { id: string; workspaceId: string }): Promise<NextSteps> {
  const plan = await planNameOf(sql, project.workspaceId);
  const { steps, removed } = await nextStepsOf(sql, project.id);
  return { steps, removed, planAllows: planOf(plan).chooseNextSteps, offered: offeredOn(plan, steps).map((s) => s.kind) };
}

export const nextStepsHandlers = {
  getNextSteps: async ({ deps, auth, params }) => nextStepsState(deps.sql, await projectIn(deps.sql, auth.workspaceId, params.projectId)),
  setNextSteps: async ({ deps, auth, params, body }) => {
    const project = await projectIn(deps.sql, auth.workspaceId, params.projectId);
    try {
      await saveNextSteps(deps.sql, project, body.steps);
    } catch (err) {
      if (err instanceof StepIncomplete) throw invalid([{ path: `steps[${err.index}].${err.field}`, message: err.message }]);
      throw err;
    }
    return nextStepsState(deps.sql, project);
  },
} satisfies HandlerGroup;
