import { z } from 'zod';
import { maxSentManifestChars } from '@demo-rooms/contract';
import type { Queues, QueueName } from './queues.js';

// Job payloads and outcomes, shared by the api (which enqueues) and the workers (which refuse a
// payload that does not fit with BullMQ's UnrecoverableError).

/** Make a build from a received upload: unpack a static archive, or check a container bundle. */
export const BuildJob = z.object({
  buildId: z.uuid(),
  /** The uploaded archive; null for a container build whose image was pushed to the registry. */
  uploadId: z.uuid().nullable(),
  /** The pushed image's manifest digest, in the project's repository (issue 32); null for an upload. */
  imageManifest: z
    .string()
    .regex(/^sha256:[0-9a-f]{64}$/)
    .nullable()
    .default(null),
  /** The manifest's text as the deploy sent it (createBuild `image.manifest`): the check takes it when its digest agrees. */
  imageManifestText: z.string().max(maxSentManifestChars).nullable().default(null),
  projectId: z.uuid(),
  workspaceId: z.uuid(),
  createdBy: z.uuid().nullable(),
  manifest: z.record(z.string(), z.unknown()),
  note: z.string().nullable(),
  rehearsal: z.record(z.string(), z.unknown()).nullable(),
});
export type BuildJob = z.infer<typeof BuildJob>;

/** Empty the object-store prefixes a deleted account left (the account_purges row names them). */
export const AccountPurgeJob = z.object({ purgeId: z.uuid() });
export type AccountPurgeJob = z.infer<typeof AccountPurgeJob>;

/** A deterministic refusal is an outcome, not a failure: retrying would refuse the same way. */
export const BuildOutcome = z.union([
  z.object({ ok: z.literal(true), buildId: z.uuid() }),
  z.object({ ok: z.literal(false), reason: z.literal('archive'), detail: z.string() }),
  z.object({ ok: z.literal(false), reason: z.literal('manifest'), issues: z.array(z.object({ path: z.string(), message: z.string() })) }),
]);
export type BuildOutcome = z.infer<typeof BuildOutcome>;

/**
 * Enqueues a job and waits for its outcome, parsed by `outcome`: what comes back through Redis
 * is the worker's word, so it is checked like any other input (a malformed one throws, naming the
 * job). The job id makes it idempotent: enqueuing the same id again while it exists joins it
 * rather than running it twice.
 */
export async function runJob<T extends z.ZodType>(
  queues: Queues,
  name: QueueName,
  jobId: string,
  data: unknown,
  timeoutMs: number,
  outcome: T,
): Promise<z.output<T>> {
  const events = queues.events(name);
  await events.waitUntilReady();
  const job = await queues.add(name, data, {
    jobId,
    attempts: 3,
    backoff: { type: 'exponential', delay: 1000 },
    removeOnComplete: { age: 24 * 3600 },
    removeOnFail: { age: 7 * 24 * 3600 },
  });
  const parsed = outcome.safeParse(await job.waitUntilFinished(events, timeoutMs));
  if (!parsed.success) throw new Error(`${name} job ${jobId} finished with an outcome that does not fit: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}
