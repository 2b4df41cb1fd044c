import { z } from 'zod';
import { Obj } from '../common.js';
import { Card, ListingCheck } from '../resources/community.js';
import { route } from '../route.js';
import { nameText } from '../storable-text.js';
import { ProjectParams } from './params.js';

// Spec 4.5: a project's community card and its listing.

// A card's title and line are one line each and are shown to strangers: cleaned like a name
// (no control, bidi or invisible characters), trimmed, so a title of spaces is refused as empty.
const Wording = z.object({ title: nameText(60), line: nameText(140) });
/** A file of the live static build, relative to its output. */
const BuildFile = z.object({ path: z.string().min(1).max(255) });

export const cardRoutes = {
  getCard: route({
    operation: 'getCard',
    method: 'GET',
    path: '/api/projects/:projectId/card',
    status: 200,
    tag: 'community',
    summary: "The project's community card.",
    params: ProjectParams,
    reply: Card,
    errors: [404],
  }),
  saveCard: route({
    operation: 'saveCard',
    method: 'POST',
    path: '/api/projects/:projectId/card',
    status: 200,
    tag: 'community',
    summary:
      'Saves the title and line; a listed card is checked again (blocked if a check fails); at most 10 edits of a listed card a day, then 429.',
    params: ProjectParams,
    // `credit` (beyond the spec): true credits the listing to the saving person's community handle
    // (listings name no builder unless they chose so), false takes the credit away, absent keeps it.
    body: Wording.extend({ credit: z.boolean().optional() }),
    reply: Card,
    errors: [404, 422, 429],
  }),
  uploadCover: route({
    operation: 'uploadCover',
    method: 'PUT',
    path: '/api/projects/:projectId/card/cover',
    status: 200,
    raw: true,
    tag: 'community',
    summary: 'The cover image bytes: PNG, JPEG or WebP, up to 1 MB (else 422 file); needs a saved card; held back until its check passes.',
    params: ProjectParams,
    // The spec does not show this reply.
    reply: Obj,
    errors: [404, 411, 422],
  }),
  removeCover: route({
    operation: 'removeCover',
    method: 'POST',
    path: '/api/projects/:projectId/card/cover/remove',
    status: 200,
    tag: 'community',
    summary: "Removes the card's cover.",
    params: ProjectParams,
    reply: Card,
    errors: [404],
  }),
  checkBuildCover: route({
    operation: 'checkBuildCover',
    method: 'POST',
    path: '/api/projects/:projectId/card/cover/build/check',
    status: 200,
    tag: 'community',
    summary:
      "Checks a file of the live static build as a cover: type read from its bytes, at most 1 MB, else 422 file; a container build's files are refused.",
    params: ProjectParams,
    body: BuildFile,
    reply: z.object({
      path: z.string(),
      type: z.enum(['image/png', 'image/jpeg', 'image/webp']),
      bytes: z.number().int(),
    }),
    errors: [404, 422],
  }),
  coverFromBuild: route({
    operation: 'coverFromBuild',
    method: 'POST',
    path: '/api/projects/:projectId/card/cover/build',
    status: 200,
    tag: 'community',
    summary: 'Copies a file of the live build as the cover, on the platform; needs a saved card; held back until its check passes.',
    params: ProjectParams,
    body: BuildFile,
    reply: Card,
    errors: [404, 422],
  }),
  listProject: route({
    operation: 'listProject',
    method: 'POST',
    path: '/api/projects/:projectId/card/list',
    status: 200,
    tag: 'community',
    summary:
      'Asks to list the project: listed, blocked, or pending review if taken off before; 422 unfinished without a card or live build; 3 a day per workspace, then 429.',
    params: ProjectParams,
    reply: Card,
    errors: [402, 404, 422, 429],
  }),
  rehearseListing: route({
    operation: 'rehearseListing',
    method: 'GET',
    path: '/api/projects/:projectId/card/listing',
    status: 200,
    tag: 'community',
    summary: 'Runs the listing checks without the content classifier; writes and counts nothing.',
    params: ProjectParams,
    reply: ListingCheck,
    errors: [404],
  }),
  appealListing: route({
    operation: 'appealListing',
    method: 'POST',
    path: '/api/projects/:projectId/card/appeal',
    status: 200,
    tag: 'community',
    summary: 'Appeals a blocked or taken-off card; 409 while one is open; 429 past 3 per workspace in 30 days.',
    params: ProjectParams,
    body: z.object({ message: z.string().min(10).max(1000) }),
    reply: Card,
    errors: [404, 409, 422, 429],
  }),
  scanCard: route({
    operation: 'scanCard',
    method: 'POST',
    path: '/api/projects/:projectId/card/scan',
    status: 200,
    tag: 'community',
    summary: 'The pre-flight warnings for a title and line; changes nothing.',
    params: ProjectParams,
    body: Wording,
    reply: z.object({ warnings: z.array(Obj) }),
    errors: [404],
  }),
  unlistProject: route({
    operation: 'unlistProject',
    method: 'POST',
    path: '/api/projects/:projectId/card/unlist',
    status: 200,
    tag: 'community',
    summary: 'Takes a listed card back to draft; the public address stops answering; the card is kept.',
    params: ProjectParams,
    reply: Card,
    errors: [404],
  }),
  suggestWording: route({
    operation: 'suggestWording',
    method: 'POST',
    path: '/api/projects/:projectId/card/suggest',
    status: 200,
    tag: 'community',
    summary:
      'A title and line drafted by an AI model; 503 while no key for it is configured, or with Retry-After while too many are drafted at once; 429 past the daily allowance of a workspace.',
    params: ProjectParams,
    body: Wording,
    reply: z.object({ title: z.string(), line: z.string() }),
    errors: [404, 429, 503],
  }),
};
