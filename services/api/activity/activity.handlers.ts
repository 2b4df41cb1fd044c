import { planLimit, planOf } from '../../core/plans.js';
import type { Handlers } from '../routing/handler.js';
import { projectIn } from '../../data/projects.sql.js';
import { planNameOf } from '../../data/workspaces.sql.js';
import { bouncesThisMonth, visitsOf } from '../../data/activity.sql.js';
import { projectAnalytics, workspaceAnalytics } from './analytics.service.js';
import { journeyOf } from './journey.service.js';

export const activityHandlers: Handlers = {
  listVisits: async ({ deps, auth, params }) => {
    const project = await projectIn(deps.sql, auth.workspaceId, params.projectId);
    const plan = await planNameOf(deps.sql, auth.workspaceId);
    // Visit listing needs Solo or above (spec 8); the 402 names the analytics limit.
    if (!planOf(plan).visitListing) throw planLimit('analytics', plan);
    return visitsOf(deps.sql, project.id);
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
};
