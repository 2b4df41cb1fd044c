import type Docker from 'dockerode';
import { http, onUnixSocket } from '../node-http.js';

// A copy's start, asked so that the tool knows when the engine has the request, not only when it
// answers. A redeploy asks the rehearsal copy's start and then loads the rest of the tool, which
// holds this thread for 0.2-0.3 s (deploy-steps/head-start.ts). Through dockerode the request was
// only written once that load was over (the socket's connect is answered on a later turn of the
// event loop), so the engine began the start 0.2-0.45 s late, measured by the copy's StartedAt.
// Written before the load, the engine starts the copy while the tool loads (issue 48).

export interface StartAsked {
  /** Settles once the request has left this process (or could not). */
  sent: Promise<void>;
  /** The engine's answer: fails with the engine's message as dockerode's errors carry it (engineMessage). */
  answered: Promise<void>;
}

/** The Docker-compatible start's answers: 204 started, 304 already running. */
const STARTED = new Set([204, 304]);

export function askStart(docker: Docker, container: Docker.Container): StartAsked {
  const socketPath = (docker.modem as { socketPath?: unknown }).socketPath;
  if (typeof socketPath !== 'string') return { sent: Promise.resolve(), answered: container.start().then(() => {}) };
  let sent!: () => void;
  const written = new Promise<void>((resolve) => (sent = resolve));
  const answered = new Promise<void>((resolve, reject) => {
    const req = http().request(
      { ...onUnixSocket(socketPath), method: 'POST', path: `/containers/${encodeURIComponent(container.id)}/start` },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          if (STARTED.has(res.statusCode ?? 0)) return resolve();
          const text = Buffer.concat(chunks).toString('utf8');
          reject(Object.assign(new Error(`the engine answered ${res.statusCode}`), { statusCode: res.statusCode, json: jsonOf(text) }));
        });
      },
    );
    req.on('finish', sent);
    req.on('error', (err) => {
      sent();
      reject(err);
    });
    req.end();
  });
  return { sent: written, answered };
}

function jsonOf(text: string): { message?: string } | null {
  try {
    return JSON.parse(text) as { message?: string };
  } catch {
    return text.trim() ? { message: text.trim() } : null;
  }
}
