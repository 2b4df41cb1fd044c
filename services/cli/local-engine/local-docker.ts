import Docker from 'dockerode';
import { Refusal } from '../refusal.js';

// The tool talks to the container engine over the Docker Engine API, like the platform's runner:
// Docker itself, or podman's Docker-compatible socket. dockerode reads DOCKER_HOST (unix:// or
// tcp://, with DOCKER_TLS_VERIFY and DOCKER_CERT_PATH) and otherwise uses /var/run/docker.sock.

/** The engine, once it has answered a ping; a refusal saying where it looked otherwise. */
export async function connectEngine(env: NodeJS.ProcessEnv = process.env): Promise<Docker> {
  const docker = new Docker();
  try {
    await docker.ping();
  } catch (err) {
    const where = env.DOCKER_HOST ?? 'unix:///var/run/docker.sock';
    throw new Refusal(`cannot reach the container engine at ${where} (${(err as Error).message})`, 'start Docker, or point DOCKER_HOST at a Docker-compatible socket (podman system service)');
  }
  return docker;
}

/** The engine's error in its own words: dockerode puts the reply body's message in `json`. */
export function engineMessage(err: unknown): string {
  const json = (err as { json?: { message?: string } | null }).json;
  return (json?.message ?? (err as Error).message ?? String(err)).trim();
}
