import { pino, type Logger } from 'pino';

export type { Logger };

// Secrets must never reach a log line: headers that carry them, and any field named like one.
export const redactPaths = [
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  '*.token',
  '*.deviceCode',
  '*.password',
  '*.secret',
  '*.key',
  '*.url',
  'token',
  'deviceCode',
];

export function createLogger(opts: { name: string; level?: string; pretty?: boolean; destination?: pino.DestinationStream }): Logger {
  const options: pino.LoggerOptions = {
    name: opts.name,
    level: opts.level ?? 'info',
    redact: { paths: redactPaths, censor: '[redacted]' },
    transport: opts.pretty
      ? { target: 'pino-pretty', options: { colorize: false, translateTime: 'HH:MM:ss.l', ignore: 'pid,hostname,name' } }
      : undefined,
  };
  return opts.destination ? pino(options, opts.destination) : pino(options);
}
