import net from 'node:net';

// HAProxy's runtime API (its admin unix socket, "stats socket ... level admin"): one command per
// connection, the answer read to the socket's end. Management guide, "Unix Socket commands".

export class AdminSocketError extends Error {}

/** Sends `command` (one line, or several separated by ';') and resolves with HAProxy's answer. */
export function adminCommand(socketPath: string, command: string, timeoutMs = 2_000): Promise<string> {
  if (/[\r\n]/.test(command)) throw new AdminSocketError('one command line at a time');
  return new Promise((resolve, reject) => {
    const socket = net.connect(socketPath);
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => socket.destroy(new AdminSocketError(`no answer from the data plane in ${timeoutMs} ms`)), timeoutMs);
    socket.on('connect', () => socket.end(`${command}\n`));
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString('utf8'));
    });
  });
}
