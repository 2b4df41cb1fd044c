import { readFile } from 'node:fs/promises';
import { http, onUnixSocket } from '../node-http.js';
import { fileURLToPath } from 'node:url';

// The engine's unix socket, found in findEngine's order (local-docker.ts) without dockerode: the
// "nothing changed" check asks it each base image's id, for the inputs digest (socket-engine.ts),
// and loading dockerode took longer than the whole check (1.9 s of an unchanged redeploy at load 7,
// where `pitch validate` loads nothing of it; issue 48, item 3). An engine over TCP or TLS is left
// to dockerode.

/** The one call the inputs digest and the recipe make of an engine: an image's id by reference. */
export interface ImageInspector {
  getImage(reference: string): { inspect(): Promise<{ Id: string }> };
}

/** The DOCKER_HOST of the podman that `npm start` runs from this repository, if it runs. */
async function localPlatformEngine(env: NodeJS.ProcessEnv = process.env): Promise<string | null> {
  const repo = fileURLToPath(new URL('../../../', import.meta.url));
  const dataDir = env.DATA_DIR ?? `${repo}.data`;
  try {
    const state = JSON.parse(await readFile(`${dataDir}/components.json`, 'utf8')) as {
      running?: boolean;
      components?: { podman?: { env?: { DOCKER_HOST?: string } } };
    };
    return state.running ? (state.components?.podman?.env?.DOCKER_HOST ?? null) : null;
  } catch {
    return null;
  }
}

/**
 * The unix sockets an engine is looked for at when DOCKER_HOST is not set, in the order findEngine
 * tries them (local-docker.ts): Docker's own, then the podman of a local platform.
 */
export async function fallbackSockets(env: NodeJS.ProcessEnv = process.env): Promise<{ path: string; where: string }[]> {
  const local = await localPlatformEngine(env);
  return [
    { path: '/var/run/docker.sock', where: 'unix:///var/run/docker.sock' },
    ...(local?.startsWith('unix://') ? [{ path: local.slice('unix://'.length), where: `${local} (the local platform's podman)` }] : []),
  ];
}

/** The engine's unix socket as findEngine would pick it; null when it would use TCP or find none (dockerode then). */
export async function engineSocket(env: NodeJS.ProcessEnv = process.env): Promise<string | null> {
  if (env.DOCKER_HOST) return env.DOCKER_HOST.startsWith('unix://') ? env.DOCKER_HOST.slice('unix://'.length) : null;
  for (const socket of await fallbackSockets(env)) if ((await get(socket.path, '/_ping')) !== null) return socket.path;
  return null;
}

/** A GET's body when it answers 200; null on any other answer or none. */
function get(socketPath: string, path: string): Promise<string | null> {
  return new Promise((resolve) => {
    const req = http().request({ ...onUnixSocket(socketPath), path, method: 'GET', timeout: 10_000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve(res.statusCode === 200 ? body : null));
      res.on('error', () => resolve(null));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(null));
    req.end();
  });
}

/** Whether the engine runs on this machine: a unix socket on Linux (podman machine's VM, TCP or SSH cannot pull from our loopback). */
export function onThisMachine(docker: { modem: unknown }): boolean {
  return process.platform === 'linux' && typeof (docker.modem as { socketPath?: unknown }).socketPath === 'string';
}
