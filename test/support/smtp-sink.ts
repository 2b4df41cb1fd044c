import type { AddressInfo } from 'node:net';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

// A real SMTP server on a loopback port (smtp-server, by nodemailer's authors) that keeps every
// mail it receives, parsed by mailparser: the mailer speaks real SMTP to it in tests.

export interface SunkMail {
  to: string[];
  subject: string;
  text: string;
  html: string;
}

export async function startSmtpSink() {
  const mails: SunkMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      simpleParser(stream)
        .then((parsed) => {
          mails.push({
            to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()),
            subject: parsed.subject ?? '',
            text: parsed.text ?? '',
            html: typeof parsed.html === 'string' ? parsed.html : '',
          });
          callback();
        })
        .catch(callback);
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    /** For SMTP_URL: plain SMTP on loopback, no TLS. */
    url: `smtp://127.0.0.1:${port}?ignoreTLS=true`,
    /** Every mail received so far to `address`. */
    mailsTo: (address: string) => mails.filter((m) => m.to.includes(address.toLowerCase())),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
