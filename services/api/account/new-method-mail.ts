import type { Config } from '../../core/infra/config.js';
import type { Sql } from '../../core/infra/db.js';
import type { Mailer } from '../../core/infra/mailer.js';
import { emailOf } from '../../data/people.sql.js';

// Whenever a way in is added (a passkey, a GitHub or Google account), the person hears of it by
// mail (security-3 M4): someone who added one with a stolen session is then noticed, and the mail
// says how to take it away again.

export async function mailNewSignInMethod(sql: Sql, mailer: Mailer, config: Config, personId: string, what: string): Promise<void> {
  const to = await emailOf(sql, personId);
  if (!to) return;
  await mailer.send({
    to,
    subject: 'A new way to sign in was added',
    text:
      `${what} was just added to your account as a way to sign in.\n\n` +
      `If that was you, there is nothing to do. If it was not, open ${config.publicUrl}/account, ` +
      'remove it, and choose "Sign out everywhere" with "also remove sign-in methods added recently".',
  });
}
