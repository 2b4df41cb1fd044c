import { randomInt } from 'node:crypto';
import type { Config } from '../../core/config.js';
import type { Sql } from '../../core/db.js';
import { notFound } from '../../core/errors.js';
import { hashSecret, newSecret } from '../../core/ids.js';
import type { Mailer } from '../../core/mailer.js';
import { ensurePerson } from '../../data/people.sql.js';
import { createSession } from '../../data/sessions.sql.js';

// Sign-in: emailed one-use links and device login for the command-line tool (spec section 5).

const emailLinkMinutes = 15;
const deviceMinutes = 10;
const devicePollSeconds = 2;
// No vowels or look-alikes, so a user code never spells a word or is misread (as RFC 8628 advises).
const userCodeLetters = 'BCDFGHJKLMNPQRSTVWXZ';

export async function sendEmailSignIn(sql: Sql, mailer: Mailer, config: Config, email: string) {
  const address = email.trim().toLowerCase();
  const token = newSecret('pp_eml');
  const [row] = await sql<{ expiresAt: Date }[]>`
    insert into email_sign_ins (email, token_hash, expires_at)
    values (${address}, ${hashSecret(token)}, now() + make_interval(mins => ${emailLinkMinutes}))
    returning expires_at`;
  const link = `${config.publicUrl}/auth/email?token=${encodeURIComponent(token)}`;
  await mailer.send({
    to: address,
    subject: 'Your sign-in link',
    text: `Open this link within ${emailLinkMinutes} minutes to sign in. It works once.\n\n${link}\n\nIf you did not ask for it, ignore this mail.`,
  });
  return { sent: true as const, expiresAt: row.expiresAt.toISOString() };
}

/** Spends an emailed link: the person (created on first sign-in, email now verified) gets a web session. */
export async function verifyEmailSignIn(sql: Sql, config: Config, token: string, userAgent?: string) {
  const [spent] = await sql<{ email: string }[]>`
    update email_sign_ins set used_at = now()
    where token_hash = ${hashSecret(token)} and used_at is null and expires_at > now()
    returning email`;
  if (!spent) throw notFound();
  const person = await ensurePerson(sql, spent.email, { verified: true });
  return createSession(sql, { personId: person.id, kind: 'web', days: config.SESSION_DAYS, method: 'email', userAgent });
}

export async function startDeviceLogin(sql: Sql, config: Config, userAgent?: string) {
  const deviceCode = newSecret('pp_dev');
  const userCode = Array.from({ length: 8 }, () => userCodeLetters[randomInt(userCodeLetters.length)]).join('');
  await sql`
    insert into device_logins (device_code_hash, user_code, user_agent, expires_at)
    values (${hashSecret(deviceCode)}, ${userCode}, ${userAgent?.slice(0, 400) ?? null}, now() + make_interval(mins => ${deviceMinutes}))`;
  const shown = `${userCode.slice(0, 4)}-${userCode.slice(4)}`;
  return {
    deviceCode,
    userCode: shown,
    verifyUrl: `${config.publicUrl}/device?code=${shown}`,
    interval: devicePollSeconds,
    expiresIn: deviceMinutes * 60,
  };
}

export async function approveDeviceLogin(sql: Sql, personId: string, userCode: string) {
  const code = userCode.toUpperCase().replace(/[^A-Z]/g, '');
  const [row] = await sql`
    update device_logins set approved_by = ${personId}, approved_at = now()
    where user_code = ${code} and approved_by is null and expires_at > now()
    returning id`;
  if (!row) throw notFound();
  return { approved: true as const };
}

/** Polled by the tool. The update is the lock: of two racing polls, only one gets the token. */
export async function redeemDeviceLogin(sql: Sql, config: Config, deviceCode: string) {
  const [row] = await sql<{ approvedBy: string | null; redeemedAt: Date | null; userAgent: string | null }[]>`
    select approved_by, redeemed_at, user_agent from device_logins
    where device_code_hash = ${hashSecret(deviceCode)} and expires_at > now()`;
  if (!row || row.redeemedAt) throw notFound();
  if (!row.approvedBy) return { pending: true as const, interval: devicePollSeconds };
  const [won] = await sql`
    update device_logins set redeemed_at = now()
    where device_code_hash = ${hashSecret(deviceCode)} and redeemed_at is null returning id`;
  if (!won) throw notFound();
  const session = await createSession(sql, {
    personId: row.approvedBy, kind: 'cli', days: config.SESSION_DAYS, method: 'device', userAgent: row.userAgent,
  });
  return { token: session.token };
}
