import type { Job } from 'bullmq';
import { UnrecoverableError } from 'bullmq';
import { z } from 'zod';
import { dayOf, lastRolledDay, nextDay, rollDay } from '../../services/data/event-days.sql.js';
import type { WorkerDeps } from '../worker-deps.js';

/** `{day?: 'YYYY-MM-DD'}`: one past UTC day; without it, yesterday and any day since the last one rolled. */
export const EventDaysJob = z.object({
  day: z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/)
    .optional(),
});

/** The schedule the workers register (hourly; each roll replaces its day's rows). */
export const eventDaysSchedule = { id: 'hourly-event-days', every: 60 * 60 * 1000 } as const;

/** How far back a scheduled run catches up on days the workers missed (older ones: a run with `day`). */
export const catchUpDays = 31;

/** The past days a scheduled run rolls: every day after the last rolled one (at most 31 back), and always yesterday again. */
export function daysToRoll(today: string, lastRolled: string | null): string[] {
  const yesterday = dayOf(new Date(Date.parse(`${today}T00:00:00Z`) - 86_400_000));
  const earliest = dayOf(new Date(Date.parse(`${today}T00:00:00Z`) - catchUpDays * 86_400_000));
  let d = lastRolled && lastRolled >= earliest ? nextDay(lastRolled) : yesterday;
  if (d > yesterday) d = yesterday;
  const days: string[] = [];
  for (; d <= yesterday; d = nextDay(d)) days.push(d);
  return days;
}

/**
 * event-days.rollup: sums the room's events of a past UTC day per project into event_days
 * (services/data/event-days.sql.ts). Idempotent: a day's rows are replaced, so a retry or a re-run
 * gives the same rows. Today is never rolled: analytics read it raw.
 */
export async function eventDays(deps: WorkerDeps, job?: Job) {
  const parsed = EventDaysJob.safeParse(job?.data ?? {});
  if (!parsed.success) throw new UnrecoverableError(`bad event-days payload: ${parsed.error.message}`);
  const today = dayOf(new Date());
  if (parsed.data.day && parsed.data.day >= today) throw new UnrecoverableError(`day ${parsed.data.day} has not ended (UTC)`);
  const days = parsed.data.day ? [parsed.data.day] : daysToRoll(today, await lastRolledDay(deps.sql));
  let rows = 0;
  for (const [i, day] of days.entries()) {
    rows += await rollDay(deps.sql, day);
    await job?.updateProgress(Math.round(((i + 1) / days.length) * 100));
  }
  deps.log.info({ days, rows }, 'event days rolled up');
  return { days, rows };
}
