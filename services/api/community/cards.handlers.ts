import type { HandlerGroup } from '../routing/handler.js';
import { imageBody } from '../routing/image-body.js';
import { projectIn } from '../../data/projects.sql.js';
import { appealListing, checkCardWords, listProject, readCard, rehearseListing, saveCard, unlistProject } from './cards.service.js';
import { suggestWording } from './community.service.js';
import { boundedSuggestion } from './suggest-wording-limits.js';
import { checkBuildCover, coverFromBuild, coverLimits, removeCover, uploadCover } from './covers.service.js';

export const cardHandlers = {
  getCard: ({ deps, auth, params }) => readCard(deps.sql, deps.config, auth.workspaceId, params.projectId),
  saveCard: ({ deps, auth, params, body }) => saveCard(deps.sql, deps.config, auth, params.projectId, body),
  uploadCover: async ({ deps, auth, params, req }) => {
    await projectIn(deps.sql, auth.workspaceId, params.projectId);
    return uploadCover(
      deps.sql,
      deps.storage,
      deps.config,
      auth.workspaceId,
      params.projectId,
      await imageBody(req, coverLimits.maxBytes, 'the cover'),
    );
  },
  removeCover: ({ deps, auth, params }) => removeCover(deps.sql, deps.storage, deps.config, auth.workspaceId, params.projectId),
  checkBuildCover: ({ deps, auth, params, body }) => checkBuildCover(deps.sql, deps.storage, auth.workspaceId, params.projectId, body.path),
  coverFromBuild: ({ deps, auth, params, body }) =>
    coverFromBuild(deps.sql, deps.storage, deps.config, auth.workspaceId, params.projectId, body.path),
  listProject: ({ deps, auth, params }) => listProject(deps.sql, deps.storage, deps.config, auth, params.projectId),
  rehearseListing: ({ deps, auth, params }) => rehearseListing(deps.sql, deps.storage, auth.workspaceId, params.projectId),
  unlistProject: ({ deps, auth, params }) => unlistProject(deps.sql, deps.config, auth.workspaceId, params.projectId),
  appealListing: ({ deps, auth, params, body }) => appealListing(deps.sql, deps.config, auth, params.projectId, body.message),
  /** The pre-flight scan of words: warns of everything a listing would find in them, and changes nothing. */
  scanCard: async ({ deps, auth, params, body }) => {
    const project = await projectIn(deps.sql, auth.workspaceId, params.projectId);
    const checked = checkCardWords({ ...body, slug: project.slug });
    return { warnings: [...checked.blocked, ...checked.warnings] };
  },
  suggestWording: async ({ deps, auth, params, body }) => {
    const project = await projectIn(deps.sql, auth.workspaceId, params.projectId);
    return boundedSuggestion(deps, auth.workspaceId, () => suggestWording(deps.config, { ...body, slug: project.slug }));
  },
} satisfies HandlerGroup;
