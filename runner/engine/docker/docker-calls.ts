import Docker from 'dockerode';
import type { CopyState } from '../copy-engine.js';

// Small pieces every part of the Docker engine shares: how to reach the engine, and how to read
// its statuses and errors.

/** dockerode from DOCKER_HOST (`unix:///path` or `tcp://host:port`), else the default socket. */
export function dockerFrom(host?: string): Docker {
  if (!host) return new Docker();
  if (host.startsWith('unix://')) return new Docker({ socketPath: host.slice('unix://'.length) });
  const u = new URL(host.replace(/^tcp:/, 'http:'));
  return new Docker({ host: u.hostname, port: Number(u.port || 2375) });
}

export const statusOf = (s: string | undefined): CopyState['status'] =>
  s === 'created' || s === 'running' || s === 'paused' || s === 'exited'
    ? s
    : s === 'configured' || s === 'initialized'
      ? 'created'
      : 'other';

export const codeOf = (err: unknown) => (err as { statusCode?: number }).statusCode;
export const gone = (err: unknown) => codeOf(err) === 404;
/** An engine timestamp (RFC 3339, nanoseconds), or null for the zero time (year 1) it writes for "not yet". */
export const engineTime = (t: string | undefined): Date | null => (t && !t.startsWith('0001-') ? new Date(t) : null);
export const bare = (imageId: string) => imageId.replace(/^sha256:/, '');

/** A call dockerode has no method for (podman's own API), through its modem. */
export function dial(docker: Docker, method: string, path: string, options: unknown): Promise<unknown> {
  return new Promise((resolve, reject) => {
    (docker.modem as { dial: (o: object, cb: (err: unknown, data: unknown) => void) => void }).dial(
      {
        path,
        method,
        options,
        statusCodes: { 200: true, 201: true, 204: true, 400: 'bad request', 404: 'not found', 409: 'conflict', 500: 'server error' },
      },
      (err, data) => (err ? reject(err) : resolve(data)),
    );
  });
}
