import type { Job } from 'bullmq';
import type { WorkerDeps } from '../deps.js';

/**
 * Removes what can no longer be used: spent or expired sign-in links and device codes, and
 * sessions that ended or expired more than 30 days ago (kept that long so the sessions list can
 * show recent ones). Idempotent: running twice deletes nothing more.
 */
export async function sweep(deps: WorkerDeps, job?: Job) {
  const { sql } = deps;
  const links = await sql`delete from email_sign_ins where expires_at < now() - interval '1 day' or used_at < now() - interval '1 day'`;
  const devices = await sql`delete from device_logins where expires_at < now() - interval '1 day'`;
  const sessions = await sql`delete from sessions where coalesce(ended_at, expires_at) < now() - interval '30 days'`;
  const counts = { signInLinks: links.count, deviceLogins: devices.count, sessions: sessions.count };
  await job?.updateProgress(100);
  deps.log.info(counts, 'sweep done');
  return counts;
}
