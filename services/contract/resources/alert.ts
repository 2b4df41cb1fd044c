import { z } from 'zod';
import { DateTime } from '../common.js';
import { ProductEvent } from './product-event.js';

// Issue 34: alerts, each member's own word of what viewers did (docs/decisions/product-events-and-alerts.md).
// Three kinds alert; each person chooses per kind how they hear of it.

export const AlertKind = z.enum(['link.opened', 'next_step.answered', 'comment.left']);
export type AlertKind = z.infer<typeof AlertKind>;

/** `instant`: a mail at once (at most one per kind and link an hour); `digest`: in the day's mail; `off`: the in-app list only. */
export const AlertMode = z.enum(['instant', 'digest', 'off']);
export type AlertMode = z.infer<typeof AlertMode>;

export const AlertSettings = z.strictObject({
  'link.opened': AlertMode,
  'next_step.answered': AlertMode,
  'comment.left': AlertMode,
});
export type AlertSettings = z.infer<typeof AlertSettings>;

export const Alert = z.object({
  /** A decimal string. */
  id: z.string(),
  read: z.boolean(),
  createdAt: DateTime,
  projectName: z.string(),
  /** What happened, in a sentence ("Ada Prospect opened the room"). */
  summary: z.string(),
  /** The place in the web app (a path: /journey/<linkId>, or the project's activity). */
  href: z.string(),
  event: ProductEvent,
});
export type Alert = z.infer<typeof Alert>;

export const AlertList = z.object({
  alerts: z.array(Alert),
  /** All unread alerts, listed or older. */
  unread: z.number().int().nonnegative(),
});
export type AlertList = z.infer<typeof AlertList>;
