import { randomBytes, randomUUID } from 'node:crypto';
import { http } from '../node-http.js';
import type Docker from 'dockerode';
import { copyCreateOptions, OUT_OF_WRITABLE_SPACE, writableSpaceHint, demuxLogs, type AppLayer } from '@demo-rooms/contract/copy';
import { Refusal } from '../refusal.js';
import type { EngineRequests } from './after-exit.js';
import { engineDial } from './engine-dial.js';
import { engineMessage } from './engine-message.js';
import { rehearsalLabels } from './left-rehearsals.js';
import { rehearsalApp } from './rehearsal-app.js';
import { askStart } from './start-asked.js';

const VOLUME: AppLayer = { kind: 'volume' };

/**
 * What the platform's runner gives a copy by default (RUNNER_COPY_* in services/core/infra/config.ts):
 * the rehearsal holds the local copy to the same, so a demo that needs more fails here, not in
 * front of a viewer.
 */
export const RUNNER_DEFAULTS = { port: 8080, memoryMb: 256, cpus: 0.5, pids: 128, writableMb: 64 };

export interface LocalCopy {
  /** Where the copy answers on this machine: a random port on 127.0.0.1. */
  baseUrl: string;
  /** Whether it still runs, and its exit code once it stopped. */
  state(): Promise<{ running: boolean; exitCode: number | null }>;
  /** Its last lines of output (stdout and stderr), for a refusal's hint. */
  logTail(lines?: number): Promise<string[]>;
  remove(): Promise<void>;
  /**
   * The engine calls that remove it (and its /app holder), for a process of their own after the
   * tool has ended (after-exit.ts); null where only this process can make them (an engine not on
   * a unix socket) or once its removal has begun.
   */
  removal(): EngineRequests | null;
}

const kinds = new WeakMap<Docker, Promise<'podman' | 'docker'>>();

/**
 * The network a podman copy is made on: a user-mode stack of its own (slirp4netns, what rootless
 * podman 4 gives every container), its port forwarded from 127.0.0.1 by podman's rootlesskit
 * port handler (slirp4netns's own handler is asked through its API socket once the copy runs:
 * 0.02-0.03 s more of each start, measured; the copy then sees its caller's address, which no
 * rehearsal reads). Rootful podman's default bridge costs the copy's start and removal about
 * 0.2-0.4 s each in netavark's veth and iptables work (measured, docs/decisions/cli.md);
 * slirp4netns reaches neither the host's loopback nor anything the bridge would not. False once
 * this engine could not start a copy with it (then the default network, as before); null before
 * the first copy.
 */
const USER_MODE_NETWORK = 'slirp4netns:port_handler=rootlesskit';
let userModeNetwork: boolean | null = null;

/**
 * Podman or Docker, asked once per engine. Podman answers its `/_ping` with a `Libpod-Api-Version`
 * header (in 0.05 s); its version call takes 0.5 to 2 s (it gathers the host's details), so that
 * is asked only when the ping cannot be read (an engine over TLS or SSH).
 */
export function engineKind(docker: Docker): Promise<'podman' | 'docker'> {
  let kind = kinds.get(docker);
  if (!kind) {
    kind = pingSaysPodman(docker).then((podman) => (podman === null ? versionKind(docker) : podman ? 'podman' : 'docker'));
    kinds.set(docker, kind);
  }
  return kind;
}

/** The engine's kind from its version call: podman names itself among the components. */
function versionKind(docker: Docker): Promise<'podman' | 'docker'> {
  return docker.version().then(
    (version) => (version.Components?.some((c) => /podman/i.test(c.Name)) ? 'podman' : 'docker'),
    () => 'docker' as const,
  );
}

/** Whether the engine's ping names libpod; null when the ping cannot be made here (TLS, SSH). */
function pingSaysPodman(docker: Docker): Promise<boolean | null> {
  const modem = docker.modem as { socketPath?: unknown; host?: unknown; port?: unknown; protocol?: unknown };
  const where =
    typeof modem.socketPath === 'string'
      ? { socketPath: modem.socketPath }
      : modem.protocol === 'http' && typeof modem.host === 'string'
        ? { host: modem.host, port: Number(modem.port ?? 2375) }
        : null;
  if (!where) return Promise.resolve(null);
  return new Promise((resolve) => {
    const req = http().get({ ...where, path: '/_ping', timeout: 5000 }, (res) => {
      res.resume();
      resolve(res.headers['libpod-api-version'] !== undefined);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(null));
  });
}

/**
 * Starts a copy of the image as the platform's runner does, from the runner's own container spec
 * (contract/runner/docker-create-options.ts): run.start as the CMD (an ENTRYPOINT stays), /app, PORT 8080 and
 * HOST 0.0.0.0, uid 1000, a read-only root with small writable /app and /tmp, no capabilities, the same memory,
 * CPU and process limits. Two things differ, both for reaching it from here: it sits on a network
 * of its own (podman: slirp4netns, above; Docker: the default network), its port published on
 * 127.0.0.1 only (on a port the engine picks),
 * where a room's copy is alone on an internal network; and it carries none of the runner's labels,
 * so no runner ever adopts or removes it.
 */
export async function startLocalCopy(
  docker: Docker,
  image: string,
  start: string[] | null,
  env: Record<string, string>,
  /** Called once the engine has been asked to start the copy (made, its start under way). */
  onStartAsked: () => void = () => {},
): Promise<LocalCopy> {
  const port = `${RUNNER_DEFAULTS.port}/tcp`;
  // The writable layer's options differ between podman and Docker (docker-create-options.ts).
  const engine = await engineKind(docker);
  // /app: on podman, the image's own /app under an overlay the engine keeps (rehearsal-app.ts);
  // else a volume on this machine's disk filled from the image. Neither is bounded (the runner's
  // bound needs a root runner's tmpfs mounts): the image's node_modules fit whatever their size.
  const overlay = engine === 'podman' ? await rehearsalApp(docker, image) : null;
  const specOf = (app: AppLayer) =>
    copyCreateOptions(
      {
        copyId: randomUUID(),
        buildId: 'rehearsal',
        projectId: 'rehearsal',
        workspaceId: 'rehearsal',
        runnerId: 'rehearsal',
        image,
        start,
        env,
        network: 'default',
        ...RUNNER_DEFAULTS,
        app,
      },
      engine,
    );
  const options = (
    network: string | undefined,
    app: AppLayer = overlay ? { kind: 'engine-overlay', lower: overlay.lower } : VOLUME,
  ): Docker.ContainerCreateOptions => {
    const spec = specOf(app);
    const { NetworkMode: _network, ...hostConfig } = spec.HostConfig ?? {};
    return {
      ...spec,
      name: `pitch-rehearsal-${randomBytes(4).toString('hex')}`,
      Labels: rehearsalLabels(),
      ExposedPorts: { [port]: {} },
      HostConfig: {
        ...hostConfig,
        ...(network ? { NetworkMode: network } : {}),
        PortBindings: { [port]: [{ HostIp: '127.0.0.1', HostPort: '' }] },
      },
    };
  };
  const userMode = engine === 'podman' && userModeNetwork !== false;
  let made = await makeAndStart(docker, engine, options(userMode ? USER_MODE_NETWORK : undefined), onStartAsked);
  if (userMode) {
    // An engine without slirp4netns (podman 5 brings pasta instead) fails where the network is
    // made: the copy is made again on the engine's default network, and so is every later one.
    userModeNetwork = !('failed' in made && /slirp4netns/i.test(made.message));
    if (!userModeNetwork) made = await makeAndStart(docker, engine, options(undefined), onStartAsked);
  }
  if (overlay && 'failed' in made) {
    // An engine that could mount the image but not lay an overlay on it: the volume, as before.
    await overlay.release();
    made = await makeAndStart(docker, engine, options(userModeNetwork ? USER_MODE_NETWORK : undefined, VOLUME), onStartAsked);
  } else if (overlay && !('failed' in made)) {
    const removeCopy = made.remove;
    // The holder goes once the copy that reads from it is dead: beside the copy's own removal on
    // podman (killed first, it reads nothing more), after it elsewhere.
    made = {
      ...made,
      remove: () => removeCopy(overlay.release),
      requests: [...made.requests, { method: 'DELETE', path: `/containers/${encodeURIComponent(overlay.holderId)}?force=true` }],
    };
  }
  if ('failed' in made) {
    const hint = OUT_OF_WRITABLE_SPACE.test(made.message)
      ? writableSpaceHint(RUNNER_DEFAULTS.writableMb)
      : "check the start command (run.start, or the image's CMD)";
    throw new Refusal(
      `the local copy ${made.failed === 'create' ? 'could not be made' : 'did not start'}: ${made.message}`,
      made.failed === 'create' ? undefined : hint,
    );
  }
  const { container, remove, requests } = made;
  const info = await container.inspect();
  const published = info.NetworkSettings.Ports?.[port]?.[0]?.HostPort;
  if (!published) {
    await remove();
    throw new Refusal("the engine did not publish the local copy's port", 'its port must be reachable on 127.0.0.1');
  }
  let removing = false;
  return {
    baseUrl: `http://127.0.0.1:${published}`,
    async state() {
      const now = await container.inspect();
      return { running: now.State.Running, exitCode: now.State.Running ? null : now.State.ExitCode };
    },
    async logTail(lines = 20) {
      try {
        const raw = (await container.logs({ stdout: true, stderr: true, tail: lines, follow: false })) as unknown as Buffer;
        return demuxLogs(Buffer.from(raw))
          .split('\n')
          .map((line) => line.trimEnd())
          .filter(Boolean);
      } catch {
        return [];
      }
    },
    remove() {
      removing = true;
      return remove();
    },
    removal() {
      const socketPath = (docker.modem as { socketPath?: unknown }).socketPath;
      if (removing || typeof socketPath !== 'string') return null;
      removing = true;
      return { socketPath, requests };
    },
  };
}

/** A copy made and started, with its removal; or where that failed (a copy made is removed again). */
async function makeAndStart(
  docker: Docker,
  engine: 'podman' | 'docker',
  options: Docker.ContainerCreateOptions,
  onStartAsked: () => void,
): Promise<
  | { container: Docker.Container; remove: (onceDead?: () => Promise<void>) => Promise<void>; requests: EngineRequests['requests'] }
  | { failed: 'create' | 'start'; message: string }
> {
  let container: Docker.Container;
  try {
    container = await docker.createContainer(options);
  } catch (err) {
    return { failed: 'create', message: engineMessage(err) };
  }
  /** The copy removed; `onceDead` (its holder's removal) runs once nothing of it runs any more. */
  const remove = async (onceDead: () => Promise<void> = async () => {}) => {
    if (engine === 'podman') return killAndRemove(docker, container.id, onceDead);
    await container.remove({ force: true, v: true }).catch(() => {});
    await onceDead();
  };
  try {
    const { sent, answered } = askStart(docker, container);
    void sent.then(onStartAsked);
    await answered;
  } catch (err) {
    await remove();
    return { failed: 'start', message: engineMessage(err) };
  }
  return { container, remove, requests: removalRequests(engine, container.id) };
}

/** killAndRemove's calls (podman), or Docker's one forced removal, as paths for a process of their own. */
function removalRequests(engine: 'podman' | 'docker', id: string): EngineRequests['requests'] {
  const path = `/v4.0.0/libpod/containers/${encodeURIComponent(id)}`;
  return engine === 'podman'
    ? [
        { method: 'POST', path: `${path}/kill?signal=KILL` },
        { method: 'DELETE', path: `${path}?force=true&v=true&timeout=0` },
      ]
    : [{ method: 'DELETE', path: `/containers/${encodeURIComponent(id)}?force=true&v=true` }];
}

/**
 * podman's removal with no stop timeout: the copy is killed at once, not sent SIGTERM and given
 * its StopTimeout first (the Docker-compatible call's way, about half a second more of a deploy's
 * end at load). A rehearsal copy holds nothing to flush: its checks are over when it goes.
 * SIGKILL is sent first, by its own call: a removal of a running copy kills it and then polls
 * for its end every 100 ms (podman 4's stop), where a copy already dead is removed without the
 * wait (0.08 s in all against 0.12 s). A kill that finds the copy stopped (409) or gone changes
 * nothing: the removal follows whatever it answered.
 */
async function killAndRemove(docker: Docker, id: string, onceDead: () => Promise<void>): Promise<void> {
  const path = `/v4.0.0/libpod/containers/${encodeURIComponent(id)}`;
  const killed = await engineDial(docker, {
    method: 'POST',
    path: `${path}/kill?`,
    query: { signal: 'KILL' },
    statusCodes: { 200: true, 204: true, 404: true, 409: true, 500: 'server error' },
  }).then(
    () => true,
    () => false,
  );
  const removed = engineDial(docker, {
    method: 'DELETE',
    path: `${path}?`,
    query: { force: true, v: true, timeout: 0 },
    statusCodes: { 200: true, 204: true, 404: true, 500: 'server error' },
  }).catch(() => {});
  // A kill that failed leaves the copy's end to the removal: its holder waits for that.
  await Promise.all([removed, killed ? onceDead() : removed.then(onceDead)]);
}
