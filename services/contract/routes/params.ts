import { z } from 'zod';

// Path parameters shared by several route files. Ids are plain strings, never checked as UUIDs:
// an id of the wrong shape is just an id that does not exist, and answers 404, not 400.

export const ProjectParams = z.object({ projectId: z.string() });
export const LinkParams = z.object({ linkId: z.string() });
export const CommentParams = z.object({ commentId: z.string() });
export const WorkspaceParams = z.object({ workspaceId: z.string() });
