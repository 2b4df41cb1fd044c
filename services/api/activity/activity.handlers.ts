import { planLimit, planOf } from '../../core/rules/plans.js';
import type { HandlerGroup } from '../routing/handler.js';
import { projectIn } from '../../data/projects.sql.js';
import { planNameOf } from '../../data/workspaces.sql.js';
import { bouncesThisMonth, visitsOf } from '../../data/activity.sql.js';
import { namesOf } from '../../data/subject-names.sql.js';
import { projectAnalytics, workspaceAnalytics } from './analytics.service.js';
import { journeyOf } from './journey.service.js';

export const activityHandlers = {
  listVisits: async ({ deps, auth, params }) => {
    const project = await projectIn(deps.sql, auth.workspaceId, params.projectId);
    const plan = await planNameOf(deps.sql, auth.workspaceId);
    // Visit listing needs Solo or above (spec 8); the 402 names the analytics limit.
    if (!planOf(plan).visitListing) throw planLimit('analytics', plan);
    const [visits, names] = await Promise.all([visitsOf(deps.sql, project.id), namesOf(deps.sql, project.id)]);
    return visits.map((v) => ({
      ...v,
      names: Object.fromEntries(
        Object.keys(v.time)
          .filter((k) => k in names.time)
          .map((k) => [k, names.time[k]]),
      ),
    }));
  },
  projectBounces: async ({ deps, auth, params }) => {
    const project = await projectIn(deps.sql, auth.workspaceId, params.projectId);
    return { thisMonth: await bouncesThisMonth(deps.sql, project.id) };
  },
  journey: ({ deps, auth, params }) => journeyOf(deps.sql, auth.workspaceId, params.linkId),
  projectAnalytics: async ({ deps, auth, params }) => {
    const project = await projectIn(deps.sql, auth.workspaceId, params.projectId);
    return projectAnalytics(deps.sql, auth.workspaceId, project, params.from, params.to);
  },
  workspaceAnalytics: ({ deps, auth, params }) => workspaceAnalytics(deps.sql, auth.workspaceId, params.from, params.to),
} satisfies HandlerGroup;
