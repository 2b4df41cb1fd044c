import { z } from 'zod';
import { Id } from '../common.js';
import { Manifest } from '../manifest/manifest.schema.js';
import { Build, BuildHistory, BuildKind, maxBuildNoteChars, PushedImage, Rehearsal } from '../resources/build.js';
import { DirectUpload, maxDirectParts, UploadedPart } from '../resources/direct-upload.js';
import { route } from '../route.js';
import { ProjectParams } from './params.js';

// Spec 4.1 and 4.2: the deploy flow (upload, build, make live) and a project's builds.
export const deployRoutes = {
  startUpload: route({
    operation: 'startUpload',
    method: 'POST',
    path: '/api/projects/:projectId/uploads',
    status: 200,
    tag: 'deploy',
    summary:
      'Declares an upload of one kind and size (at most 512 MB, else 422 size); answers where to PUT the bytes: the api, or with direct: true, presigned URLs of the object store.',
    params: ProjectParams,
    // Above 512 MB is refused by the service as 422 size, so the schema only asks for a positive integer.
    body: z.object({
      kind: BuildKind,
      sizeBytes: z.number().int().positive(),
      /** Asks for presigned URLs of the object store (the reply's `direct`); old clients leave it out and PUT to the api. */
      direct: z.boolean().optional(),
    }),
    /**
     * `putUrl` is a path on the API's own address: `/api/uploads/:uploadId`. `direct` is there
     * when asked for and offered: then the bytes go to its URLs and completeUpload follows.
     */
    reply: z.object({ uploadId: Id, putUrl: z.string(), direct: DirectUpload.optional() }),
    errors: [402, 404, 422, 423],
  }),
  completeUpload: route({
    operation: 'completeUpload',
    method: 'POST',
    path: '/api/uploads/:uploadId/complete',
    status: 200,
    tag: 'deploy',
    summary:
      "Ends a direct upload: assembles its parts (each part's ETag as the store answered it) and checks that the store holds exactly the declared size (422 size, parts or used).",
    params: z.object({ uploadId: z.string() }),
    body: z.object({ parts: z.array(UploadedPart).max(maxDirectParts).optional() }),
    reply: z.object({ uploadId: Id, sizeBytes: z.number().int() }),
    errors: [404, 422],
  }),
  uploadPut: route({
    operation: 'uploadPut',
    method: 'PUT',
    path: '/api/uploads/:uploadId',
    status: 204,
    raw: true,
    tag: 'deploy',
    summary: 'The upload bytes, Content-Length equal to the declared size (411 without it; 422 size or used).',
    params: z.object({ uploadId: z.string() }),
    errors: [404, 411, 422],
  }),
  createBuild: route({
    operation: 'createBuild',
    method: 'POST',
    path: '/api/projects/:projectId/builds',
    status: 201,
    tag: 'deploy',
    summary:
      'A build (not live) from a received upload; counts against the plan; 422 unfinished, kind, used or archive; 423 while paused by the platform.',
    params: ProjectParams,
    body: z
      .object({
        /** The received upload the build is made from; or, for a container build, `image`. */
        uploadId: Id.optional(),
        /** A container image pushed to the platform's registry, in the project's repository, by its manifest digest (issue 32). */
        image: PushedImage.optional(),
        manifest: Manifest,
        note: z.string().max(maxBuildNoteChars).nullable().optional(),
        /** What the deploy saw rehearsing each story step; without it the tour shows not reported. */
        rehearsal: Rehearsal.optional(),
      })
      .refine((body) => (body.uploadId === undefined) !== (body.image === undefined), {
        message: 'give uploadId (an uploaded archive) or image (a pushed image), one of them',
        path: ['uploadId'],
        // Asked whatever else does not fit, so one 400 names every field (a refine runs only on a valid object otherwise).
        when: (payload) => typeof payload.value === 'object' && payload.value !== null,
      }),
    reply: Build,
    errors: [402, 404, 422, 423],
  }),
  listBuilds: route({
    operation: 'listBuilds',
    method: 'GET',
    path: '/api/projects/:projectId/builds',
    status: 200,
    tag: 'deploy',
    summary: "The project's builds, newest first.",
    params: ProjectParams,
    reply: z.array(Build),
    errors: [404],
  }),
  buildHistory: route({
    operation: 'buildHistory',
    method: 'GET',
    path: '/api/projects/:projectId/builds/history',
    status: 200,
    tag: 'deploy',
    summary: 'Builds with who deployed them and each time they were made live, newest first.',
    params: ProjectParams,
    reply: z.array(BuildHistory),
    errors: [404],
  }),
  makeLive: route({
    operation: 'makeLive',
    method: 'POST',
    path: '/api/projects/:projectId/builds/:buildId/live',
    status: 200,
    tag: 'deploy',
    summary:
      "Makes the build the project's live build, recording who and when; recorded as a rollback only when the build is older than the live one.",
    params: z.object({ projectId: z.string(), buildId: z.string() }),
    reply: Build,
    errors: [402, 404, 423],
  }),
};
