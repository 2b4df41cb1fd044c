import { randomInt } from 'node:crypto';
import type { Config } from '../../core/infra/config.js';
import type { Sql } from '../../core/infra/db.js';
import { notFound, Refusal } from '../../core/rules/errors.js';
import { hashSecret, newSecret } from '../../core/infra/ids.js';
import type { Mailer } from '../../core/infra/mailer.js';
import { ensurePerson } from '../../data/people.sql.js';
import { createSession } from '../../data/sessions.sql.js';
import { keepEmailSignIn, liveEmailSignIn, spendEmailSignIn } from '../../data/email-sign-ins.sql.js';
import { approveDeviceCode, deviceLoginOf, insertDeviceLogin, redeemDeviceCode } from '../../data/device-logins.sql.js';

// Sign-in: emailed one-use links and device login for the command-line tool (spec section 5).

const emailLinkMinutes = 15;
const deviceMinutes = 10;
const devicePollSeconds = 2;
// No vowels or look-alikes, so a user code never spells a word or is misread (as RFC 8628 advises).
const userCodeLetters = 'BCDFGHJKLMNPQRSTVWXZ';

/**
 * Sends a link bound to the asking browser: `browserNonce` is the secret of its __Host- cookie,
 * and only its hash is kept with the link (security-3 M3).
 */
export async function sendEmailSignIn(sql: Sql, mailer: Mailer, config: Config, email: string, browserNonce: string) {
  const address = email.trim().toLowerCase();
  const token = newSecret('pp_eml');
  const row = await keepEmailSignIn(sql, {
    email: address,
    tokenHash: hashSecret(token),
    browserHash: hashSecret(browserNonce),
    minutes: emailLinkMinutes,
  });
  const link = `${config.publicUrl}/auth/email?token=${encodeURIComponent(token)}`;
  await mailer.send({
    to: address,
    subject: 'Your sign-in link',
    text: `Open this link within ${emailLinkMinutes} minutes, in the browser where you asked for it, to sign in. It works once.\n\n${link}\n\nIf you did not ask for it, ignore this mail.`,
  });
  return { sent: true as const, expiresAt: row.expiresAt.toISOString() };
}

/** "a•••@example.com": enough for the person to know the account, not enough to learn an address. */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf('@');
  return `${email.slice(0, Math.min(1, at))}\u2022\u2022\u2022${email.slice(at)}`;
}

const nonceHash = (nonce: string | undefined) => (nonce ? hashSecret(nonce) : null);

/** What the link page shows before anything is spent: the masked account and whether this browser asked. */
export async function checkEmailSignIn(sql: Sql, token: string, browserNonce: string | undefined) {
  const live = await liveEmailSignIn(sql, hashSecret(token), nonceHash(browserNonce));
  if (!live) throw notFound();
  return { email: maskEmail(live.email), thisBrowser: live.sameBrowser, expiresAt: live.expiresAt.toISOString() };
}

/**
 * Spends an emailed link: the person (created on first sign-in, email now verified) gets a web
 * session. Only in the browser that asked for it, or after the person confirmed the masked account
 * (`confirmed`); otherwise 422 `elsewhere` and the link stays unspent.
 */
export async function verifyEmailSignIn(
  sql: Sql,
  config: Config,
  token: string,
  browserNonce: string | undefined,
  confirmed: boolean,
  userAgent?: string,
) {
  const tokenHash = hashSecret(token);
  const spent = await spendEmailSignIn(sql, tokenHash, nonceHash(browserNonce), confirmed);
  if (!spent) {
    const live = await liveEmailSignIn(sql, tokenHash, null);
    if (!live) throw notFound();
    throw new Refusal(422, 'refused: elsewhere', 'elsewhere', {
      detail: 'this link was asked for in another browser: confirm the account to sign in here',
      email: maskEmail(live.email),
    });
  }
  const person = await ensurePerson(sql, spent.email, { verified: true });
  return createSession(sql, { personId: person.id, kind: 'web', days: config.SESSION_DAYS, method: 'email', userAgent });
}

export async function startDeviceLogin(sql: Sql, config: Config, userAgent?: string) {
  const deviceCode = newSecret('pp_dev');
  const userCode = Array.from({ length: 8 }, () => userCodeLetters[randomInt(userCodeLetters.length)]).join('');
  await insertDeviceLogin(sql, {
    deviceCodeHash: hashSecret(deviceCode),
    userCode,
    userAgent: userAgent?.slice(0, 400) ?? null,
    minutes: deviceMinutes,
  });
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
  if (!(await approveDeviceCode(sql, code, personId))) throw notFound();
  return { approved: true as const };
}

/** Polled by the tool. The update is the lock: of two racing polls, only one gets the token. */
export async function redeemDeviceLogin(sql: Sql, config: Config, deviceCode: string) {
  const row = await deviceLoginOf(sql, hashSecret(deviceCode));
  if (!row || row.redeemedAt) throw notFound();
  if (!row.approvedBy) return { pending: true as const, interval: devicePollSeconds };
  if (!(await redeemDeviceCode(sql, hashSecret(deviceCode)))) throw notFound();
  const session = await createSession(sql, {
    personId: row.approvedBy,
    kind: 'cli',
    days: config.SESSION_DAYS,
    method: 'device',
    userAgent: row.userAgent,
  });
  return { token: session.token };
}
