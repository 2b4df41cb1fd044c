import { z } from 'zod';
import { DateTime, Id } from '../common.js';
import { LinkStage } from './link.js';

// Issue 34 (the spec leaves outbound events "not shown"; docs/decisions/product-events-and-alerts.md):
// what a viewer did that a builder wants to hear of, written once to an outbox in the same
// transaction as the fact itself, then fanned out to each consumer (alerts by mail and in the app,
// signed webhooks). The same shape is a webhook's `data` and an alert's source. Never written for
// a preview or a bot: the evidence rules decide (services/data/link-evidence.sql.ts). One kind is
// the workspace's own, of no viewer: usage.month_closed (issue 46), written as a month closes.

export const ProductEventKind = z.enum([
  'link.opened',
  'visit.ended',
  'next_step.answered',
  'comment.left',
  'link.stage_changed',
  'usage.month_closed',
]);
export type ProductEventKind = z.infer<typeof ProductEventKind>;

/** Who the viewer is, as far as the link and who-are-you tell. */
export const EventViewer = z.object({
  name: z.string().nullable(),
  company: z.string().nullable(),
});
export type EventViewer = z.infer<typeof EventViewer>;

const base = {
  /** The outbox row's id (a decimal string), unique and increasing per event: webhooks' `webhook-id` builds on it. */
  id: z.string(),
  workspaceId: Id,
  projectId: Id,
  /** Null for a room's public address (no link). */
  linkId: Id.nullable(),
  occurredAt: DateTime,
  viewer: EventViewer,
};

export const ProductEvent = z.discriminatedUnion('kind', [
  /** A link's viewer entered the room for the first time (its first real visit; never a preview). */
  z.object({ ...base, kind: z.literal('link.opened'), data: z.object({ visitId: Id }) }),
  /** A visit ended (the viewer left or went quiet); seconds visible in all and per app. */
  z.object({
    ...base,
    kind: z.literal('visit.ended'),
    data: z.object({
      visitId: Id,
      seconds: z.number().int().nonnegative(),
      apps: z.array(z.object({ app: z.string(), seconds: z.number().int().nonnegative() })),
    }),
  }),
  /** The viewer answered "What happens next". */
  z.object({ ...base, kind: z.literal('next_step.answered'), data: z.object({ answer: z.string(), detail: z.string().nullable() }) }),
  /** The viewer left a comment (the body at most 2,000 characters, as stored). */
  z.object({ ...base, kind: z.literal('comment.left'), data: z.object({ commentId: Id, body: z.string() }) }),
  /** The link's stage moved (by evidence or by the builder on the pipeline). */
  z.object({ ...base, kind: z.literal('link.stage_changed'), data: z.object({ from: LinkStage.nullable(), to: LinkStage }) }),
  /**
   * Issue 46: the usage roll-up closed the workspace's UTC month; its statement (GET
   * /api/usage/statements/{month}) never changes from now on. A workspace's event: no project,
   * link or viewer. Sent once per workspace and month.
   */
  z.object({
    ...base,
    projectId: z.null(),
    linkId: z.null(),
    viewer: z.object({ name: z.null(), company: z.null() }),
    kind: z.literal('usage.month_closed'),
    data: z.object({
      month: z.string(),
      copies: z.number().int().nonnegative(),
      containerSeconds: z.number(),
      containerHours: z.number(),
      correctionSeconds: z.number(),
      viewerHours: z.number(),
      spendUsd: z.number(),
    }),
  }),
]);
export type ProductEvent = z.infer<typeof ProductEvent>;

/** An event of something a viewer did (every kind but a workspace's own, usage.month_closed): it has a project. */
export type ViewerEvent = Exclude<ProductEvent, { kind: 'usage.month_closed' }>;
export const isViewerEvent = (e: ProductEvent): e is ViewerEvent => e.kind !== 'usage.month_closed';
