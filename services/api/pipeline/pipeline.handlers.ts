import type { Db } from '../../core/infra/db.js';
import { planLimit, planOf } from '../../core/rules/plans.js';
import { addNote, noteLinkIn, notesOf, removeNote } from '../../data/link-notes.sql.js';
import { linkIn } from '../../data/links.sql.js';
import { boardRows, claimsByLink, placeStage, setFollowUp, setOutcome } from '../../data/pipeline.sql.js';
import { projectIn } from '../../data/projects.sql.js';
import { planNameOf } from '../../data/workspaces.sql.js';
import type { HandlerGroup } from '../routing/handler.js';
import { boardCardView, pipelineView } from './board-view.js';

// The pipeline (spec 4.2): boards of links with what the evidence suggests, the builder's own
// stage, outcome, follow-up and notes. On Free every one of these answers 402 `pipeline`, links
// made while on a paid plan included; so does the pipeline list (GET /api/pipeline), which the
// spec puts in its links table but is a pipeline operation all the same ("Free has no pipeline").

async function assertPipeline(sql: Db, workspaceId: string) {
  const plan = await planNameOf(sql, workspaceId);
  if (!planOf(plan).pipeline) throw planLimit('pipeline', plan);
}

async function cards(sql: Db, workspaceId: string, only: { projectId?: string; linkId?: string } = {}) {
  const rows = await boardRows(sql, workspaceId, only);
  const claims = await claimsByLink(
    sql,
    rows.map((r) => r.id),
  );
  return rows.map((r) => boardCardView(r, claims.get(r.id) ?? []));
}

/** The card of one link, after a change to it. */
async function cardOf(sql: Db, workspaceId: string, link: { id: string }) {
  const [card] = await cards(sql, workspaceId, { linkId: link.id });
  return card;
}

const noteViews = async (sql: Db, linkId: string) =>
  (await notesOf(sql, linkId)).map((n) => ({
    id: n.id,
    linkId: n.linkId,
    body: n.body,
    by: n.by,
    byImage: null,
    createdAt: n.createdAt.toISOString(),
  }));

export const pipelineHandlers = {
  pipeline: async ({ deps, auth }) => {
    await assertPipeline(deps.sql, auth.workspaceId);
    return (await boardRows(deps.sql, auth.workspaceId)).map(pipelineView);
  },
  board: async ({ deps, auth }) => {
    await assertPipeline(deps.sql, auth.workspaceId);
    return cards(deps.sql, auth.workspaceId);
  },
  projectBoard: async ({ deps, auth, params }) => {
    const project = await projectIn(deps.sql, auth.workspaceId, params.projectId);
    await assertPipeline(deps.sql, auth.workspaceId);
    return cards(deps.sql, auth.workspaceId, { projectId: project.id });
  },
  setStage: async ({ deps, auth, params, body }) => {
    const link = await linkIn(deps.sql, auth.workspaceId, params.linkId);
    await assertPipeline(deps.sql, auth.workspaceId);
    await placeStage(deps.sql, link.id, body.stage);
    return cardOf(deps.sql, auth.workspaceId, link);
  },
  setOutcome: async ({ deps, auth, params, body }) => {
    const link = await linkIn(deps.sql, auth.workspaceId, params.linkId);
    await assertPipeline(deps.sql, auth.workspaceId);
    await setOutcome(deps.sql, link.id, body.outcome);
    return cardOf(deps.sql, auth.workspaceId, link);
  },
  followUp: async ({ deps, auth, params, body }) => {
    const link = await linkIn(deps.sql, auth.workspaceId, params.linkId);
    await assertPipeline(deps.sql, auth.workspaceId);
    await setFollowUp(deps.sql, link.id, body.on, body.note);
    return cardOf(deps.sql, auth.workspaceId, link);
  },
  listNotes: async ({ deps, auth, params }) => {
    const link = await linkIn(deps.sql, auth.workspaceId, params.linkId);
    await assertPipeline(deps.sql, auth.workspaceId);
    return noteViews(deps.sql, link.id);
  },
  addNote: async ({ deps, auth, params, body }) => {
    const link = await linkIn(deps.sql, auth.workspaceId, params.linkId);
    await assertPipeline(deps.sql, auth.workspaceId);
    await addNote(deps.sql, link, body.body, auth.personId);
    return noteViews(deps.sql, link.id);
  },
  removeNote: async ({ deps, auth, params }) => {
    // A foreign or missing note is 404 first, on any plan, as every other id here.
    await noteLinkIn(deps.sql, auth.workspaceId, params.noteId);
    await assertPipeline(deps.sql, auth.workspaceId);
    const linkId = await removeNote(deps.sql, auth.workspaceId, params.noteId);
    return noteViews(deps.sql, linkId);
  },
} satisfies HandlerGroup;
