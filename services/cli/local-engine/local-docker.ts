import type Docker from 'dockerode';
import { Refusal } from '../refusal.js';
import { loadDockerode } from './dockerode-lazy-parts.js';
import { fallbackSockets } from './engine-socket.js';
import { socketEngine } from './socket-engine.js';

// The tool talks to the container engine over the Docker Engine API, like the platform's runner:
// Docker itself, or podman's Docker-compatible socket. It looks, in order, at DOCKER_HOST (unix://
// or tcp://, with DOCKER_TLS_VERIFY and DOCKER_CERT_PATH, as dockerode reads it), at Docker's own
// /var/run/docker.sock, and at the podman socket a local platform (`npm start` in this repository)
// serves, named in its components file, so a newcomer needs no setting at all. An engine on a unix
// socket is answered over node:http for a redeploy's calls, dockerode loading only for the others
// (socket-engine.ts).

export interface FoundEngine {
  docker: Docker;
  /** Where the engine answered, to say so. */
  where: string;
}

const answers = (docker: Docker) =>
  docker.ping().then(
    () => true,
    () => false,
  );

/** The engine, once it has answered a ping, and where; a refusal saying where it looked otherwise. */
export async function findEngine(env: NodeJS.ProcessEnv = process.env): Promise<FoundEngine> {
  if (env.DOCKER_HOST) {
    const docker = env.DOCKER_HOST.startsWith('unix://') ? socketEngine(env.DOCKER_HOST.slice('unix://'.length)) : new (loadDockerode())();
    try {
      await docker.ping();
    } catch (err) {
      throw new Refusal(
        `cannot reach the container engine at ${env.DOCKER_HOST} (${(err as Error).message})`,
        'start it, or point DOCKER_HOST at a Docker-compatible socket',
      );
    }
    return { docker, where: env.DOCKER_HOST };
  }
  for (const socket of await fallbackSockets(env)) {
    const docker = socketEngine(socket.path);
    if (await answers(docker)) return { docker, where: socket.where };
  }
  throw new Refusal(
    'cannot reach a container engine: DOCKER_HOST is not set, /var/run/docker.sock does not answer, and no local platform (npm start) runs',
    'start Docker, run `npm start` in the platform repository, or point DOCKER_HOST at a Docker-compatible socket (podman system service)',
  );
}
