import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import type { Logger } from './log.js';
import { addressValue, headerValue, oneLine } from '../rules/mail-headers.js';

export interface Mail {
  to: string;
  subject: string;
  text: string;
  /** An HTML body beside the text (alerts); the outbox file keeps it next to the text one. */
  html?: string;
}
export interface Mailer {
  send(mail: Mail): Promise<void>;
}

/**
 * SMTP when SMTP_URL is set; otherwise each mail is written to `<dataDir>/outbox/` and the log
 * says where. The body stays out of the log: it carries one-use sign-in links. Headers never carry
 * a line break or another control character (mail-headers.ts): nodemailer encodes the rest for
 * SMTP, and the outbox file gets RFC 2047 words of its own.
 */
export function createMailer(opts: { smtpUrl?: string; from: string; dataDir: string; log: Logger }): Mailer {
  if (opts.smtpUrl) {
    const transport = nodemailer.createTransport(opts.smtpUrl);
    return {
      send: async (mail) =>
        void (await transport.sendMail({ ...mail, from: oneLine(opts.from), to: oneLine(mail.to), subject: oneLine(mail.subject) })),
    };
  }
  const outbox = join(opts.dataDir, 'outbox');
  return {
    async send(mail) {
      await mkdir(outbox, { recursive: true, mode: 0o700 });
      const file = join(outbox, `${new Date().toISOString().replace(/[:.]/g, '-')}-${mail.to.replace(/[^a-z0-9@.-]/gi, '_')}.txt`);
      const head = [`To: ${addressValue(mail.to)}`, `From: ${addressValue(opts.from)}`, `Subject: ${headerValue(mail.subject)}`];
      await writeFile(file, `${head.join('\n')}\n\n${mail.text}\n`, { mode: 0o600 });
      if (mail.html) await writeFile(file.replace(/\.txt$/, '.html'), mail.html, { mode: 0o600 });
      opts.log.info({ to: mail.to, subject: mail.subject, file }, 'mail written to the outbox (no SMTP_URL)');
    },
  };
}
