import { z } from 'zod';
import { DateTime, Id, Obj, PlanName } from '../common.js';

// Spec 2.10: billing and container usage.

export const Billing = z.object({
  plan: PlanName,
  kind: z.enum(['personal', 'team']).optional(),
  seats: Obj.optional(),
  interval: z.enum(['month', 'year']).nullable(),
  status: z.enum(['active', 'past_due', 'canceled']),
  currentPeriodEnd: DateTime.nullable(),
  usage: Obj,
  allowance: Obj,
  history: Obj.optional(),
  suspended: z.boolean(),
  /** Paid plans cannot be bought yet. */
  paidPlans: z.literal('coming-soon'),
});
export type Billing = z.infer<typeof Billing>;

/** A month's container figures, of a workspace or of one of its projects. */
const UsageFigures = {
  runs: z.number().int(),
  containerHours: z.number(),
  failedStarts: z.number().int(),
  /** Copies that exited after answering their health path (issue 13; not in the spec's list). */
  crashes: z.number().int(),
  heldBack: z.number().int(),
  medianColdStartMs: z.number().int().nullable(),
};

export const ContainerUsage = z.object({
  month: z.string(),
  ...UsageFigures,
  /** The same figures per project (issue 29, item 7), most container-hours first; projects with nothing this month are left out. */
  projects: z.array(z.object({ projectId: Id, name: z.string(), ...UsageFigures })),
});
export type ContainerUsage = z.infer<typeof ContainerUsage>;
