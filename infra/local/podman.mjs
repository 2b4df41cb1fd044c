// Local container engine: `podman system service` answering the Docker Engine API on
// <data>/podman.sock. Images and containers live in podman's usual storage, not in <data>.
import { existsSync, mkdirSync, unlinkSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { repoRoot, startProcess, which } from './lib.mjs';

export const containersConf = path.join(repoRoot, 'infra/local/containers.conf');

export async function startPodman({ dataDir }) {
  if (!which('podman')) throw new Error('podman is not installed (apt-get install podman runc), or set DOCKER_HOST');
  mkdirSync(dataDir, { recursive: true });
  const socket = path.join(dataDir, 'podman.sock');
  if (socket.length > 100) throw new Error(`socket path ${socket} is too long for a unix socket; use a shorter DATA_DIR`);
  if (existsSync(socket)) unlinkSync(socket); // left by a killed run; podman will not listen over it
  const dockerHost = `unix://${socket}`;
  const podman = await startProcess('podman', 'podman', ['system', 'service', '--time=0', dockerHost], {
    env: { ...process.env, CONTAINERS_CONF: containersConf },
    program: 'podman system service',
    waitingFor: 'the podman socket to answer /_ping',
    ready: () => pingEngine(dockerHost),
  });
  // Containers keep running under conmon after the service stops; the runner owns them.
  return { env: { DOCKER_HOST: dockerHost }, ...podman };
}

export async function pingEngine(dockerHost) {
  const { status, body } = await engineRequest(dockerHost, 'GET', '/_ping');
  return status === 200 && body.toString() === 'OK';
}

/**
 * One request to the Docker Engine API at `dockerHost` (unix:// or tcp://). `body` may be a
 * stream. Resolves with the status and the whole reply body as a Buffer.
 */
export function engineRequest(dockerHost, method, urlPath, { body, headers = {}, timeoutMs = 5_000 } = {}) {
  const { protocol, hostname, port, pathname } = new URL(dockerHost);
  const target = protocol === 'unix:' ? { socketPath: pathname } : { host: hostname, port: Number(port) || 2375 };
  return new Promise((resolve, reject) => {
    const request = http.request({ ...target, method, path: urlPath, headers, timeout: timeoutMs }, (reply) => {
      const chunks = [];
      reply.on('data', (chunk) => chunks.push(chunk));
      reply.on('end', () => resolve({ status: reply.statusCode, body: Buffer.concat(chunks) }));
      reply.on('error', reject);
    });
    request.on('timeout', () => request.destroy(new Error(`${method} ${urlPath} timed out`)));
    request.on('error', reject);
    if (body?.pipe) body.pipe(request);
    else request.end(body);
  });
}
