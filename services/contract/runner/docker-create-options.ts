import type Docker from 'dockerode';
import { containerName, labelsOf } from './copy-labels.js';
import { COPY_HOST, COPY_USER, STOP_TIMEOUT_S, type CopySpec } from './copy-spec.js';

// How a copy's container is made over the Docker Engine API (research/security.md §4). Pure, so
// the hardening can be read and tested in one place: whatever the build asks for, these fields are
// the runner's. Two callers speak that API: the runner's DockerEngine (runner/engine/docker/) and
// the CLI's local rehearsal, which holds a local copy to the same hardening; the CLI may import
// only the contract, so this file is here and not under runner/engine (docs/decisions/contract-package.md).

/** A CopySpec as the Docker Engine API needs it: on the copy's own network, and how /app is writable. */
export interface DockerCopySpec extends CopySpec {
  network: string;
  /** How /app is made writable; without it, the engine's tmpfs filled from the image (below). */
  app?: AppLayer;
  /** The image's VOLUMEs: each would be an unbounded volume on the host's disk, so each is covered read-only. */
  imageVolumes?: string[];
}

/**
 * How a copy's /app is made writable:
 * - `overlay` (the runner on podman): the image's /app, read-only and shared by every copy of the
 *   image, under an upper folder on a tmpfs of writableMb that the runner mounted for this copy
 *   alone; a file is copied up only when the copy writes to it (runner/engine/docker/writable-layer.ts).
 * - `engine-overlay` (the local rehearsal on podman): the image's /app, read-only, under an upper
 *   folder the engine keeps on its own disk and removes with the copy (`:O` without `upperdir`);
 *   nothing copied at start, no size bound: the builder's own machine.
 * - `volume` (the local rehearsal elsewhere): an anonymous volume on the engine's disk, filled from
 *   the image's /app and removed with the copy; no size bound either.
 * Paths are host paths, as the engine sees them.
 */
export type AppLayer =
  | { kind: 'overlay'; lower: string; upper: string; work: string }
  | { kind: 'engine-overlay'; lower: string }
  | { kind: 'volume' };

/**
 * The window over which a copy's CPU share is counted: one second, the kernel's longest. A copy
 * may use `cpus` of a core on average over each second, so a copy that was idle runs its start
 * or a heavy request at full speed until it has spent that second's share. Over the engines'
 * default 100 ms window, a Node start needing more than 50 ms of CPU (every Node start) was
 * stopped in each window for the rest of it: 70-90 ms more before a copy answered, for the same
 * average (docs/decisions/copy-engine.md, "A copy's CPU share is counted over one second"). A
 * copy busy for long still gets no more than its share; it waits longer at a time once spent.
 */
export const CPU_WINDOW_US = 1_000_000;

/** Which engine makes the copy: their tmpfs options differ (below). */
export type EngineKind = 'podman' | 'docker';

/**
 * The copy's private writable layer. The root stays read-only; /app and /tmp are the only places a
 * demo writes (json-server's db.json, an upload folder, a SQLite file), each bounded by writableMb
 * of RAM charged to the copy's memory limit: past it the demo gets ENOSPC, it never touches the
 * host's disk, and all of it goes with the copy.
 * - podman, `overlay` (the runner): an overlay volume (`:O`) whose lower is the image's /app and
 *   whose upper and work folders sit on the copy's own tmpfs; the upper's owner (uid 1000) owns the
 *   merged /app, so files COPY'd as root stay read-only but new ones can be made and old ones
 *   replaced by rename. Nothing is copied at start: a 120 MB node_modules costs no RAM until written.
 * - `engine-overlay` (the local rehearsal on podman): the same overlay, its upper on the engine's disk.
 * - `volume` (the local rehearsal elsewhere): an anonymous volume on disk, filled from the image.
 * - otherwise, podman: a tmpfs filled from the image at start (`tmpcopyup`; `U` gives it to the
 *   copy's user); Docker, which has neither option, an anonymous volume on a tmpfs device, filled
 *   on first mount and removed with the container (`v: true`). Both hold the image's /app in RAM,
 *   so the image's /app counts against writableMb there (docs/decisions/copies-writable-layer.md).
 */
function writableLayer(s: DockerCopySpec, engine: EngineKind): Pick<Docker.HostConfig, 'Tmpfs' | 'Mounts' | 'Binds'> {
  const size = `size=${s.writableMb}m`;
  // An image's VOLUME would give the copy a volume on the host's disk with no bound: an empty
  // read-only tmpfs covers each (pitch validate notes a VOLUME line: a copy cannot write there).
  const covered = Object.fromEntries(
    (s.imageVolumes ?? []).filter((v) => v !== '/app' && v !== '/tmp').map((v) => [v, 'ro,noexec,nosuid,nodev,size=4k']),
  );
  const tmp = { ...covered, '/tmp': `rw,noexec,nosuid,nodev,${size}` };
  if (s.app?.kind === 'overlay') {
    if (engine !== 'podman') throw new Error('an overlay /app needs podman');
    return { Tmpfs: tmp, Binds: [`${s.app.lower}:/app:O,upperdir=${s.app.upper},workdir=${s.app.work}`] };
  }
  if (s.app?.kind === 'engine-overlay') {
    if (engine !== 'podman') throw new Error('an overlay /app needs podman');
    return { Tmpfs: tmp, Binds: [`${s.app.lower}:/app:O`] };
  }
  if (s.app?.kind === 'volume') return { Tmpfs: tmp, Mounts: [{ Type: 'volume', Target: '/app', Source: '' }] };
  if (engine === 'podman') return { Tmpfs: { ...tmp, '/app': `rw,nosuid,nodev,${size},U` } };
  return {
    Tmpfs: tmp,
    Mounts: [
      {
        Type: 'volume',
        Target: '/app',
        Source: '',
        VolumeOptions: {
          NoCopy: false,
          Labels: {},
          DriverConfig: { Name: 'local', Options: { type: 'tmpfs', device: 'tmpfs', o: `${size},uid=1000,gid=1000,nosuid,nodev` } },
        },
      },
    ],
  };
}

export function copyCreateOptions(s: DockerCopySpec, engine: EngineKind = 'podman'): Docker.ContainerCreateOptions {
  // PORT and HOST are the runner's: run.env cannot move the copy off the port it is probed on.
  const env = { ...s.env, PORT: String(s.port), HOST: COPY_HOST };
  const memory = s.memoryMb * 1024 * 1024;
  return {
    name: containerName(s.copyId),
    Image: s.image,
    // run.start replaces the image's CMD, as `docker run image cmd…` does; an ENTRYPOINT stays.
    ...(s.start ? { Cmd: s.start } : {}),
    WorkingDir: '/app',
    Env: Object.entries(env).map(([k, v]) => `${k}=${v}`),
    User: COPY_USER,
    Hostname: `copy-${s.copyId.replace(/-/g, '').slice(0, 12)}`,
    Labels: labelsOf(s),
    StopTimeout: STOP_TIMEOUT_S,
    HostConfig: {
      NetworkMode: s.network,
      // An init process reaps zombies and passes signals on, so a stop is quick and clean.
      Init: true,
      CapDrop: ['ALL'],
      SecurityOpt: ['no-new-privileges'],
      // Memory equal to memory+swap: no swap.
      Memory: memory,
      MemorySwap: memory,
      // `cpus` of a core over a one-second window (CPU_WINDOW_US); NanoCpus would count it over 100 ms.
      CpuPeriod: CPU_WINDOW_US,
      CpuQuota: Math.round(s.cpus * CPU_WINDOW_US),
      PidsLimit: s.pids,
      // A read-only root and bounded writable places: a copy cannot fill the host's disk or change its image.
      ReadonlyRootfs: true,
      ...writableLayer(s, engine),
      RestartPolicy: { Name: 'no' },
      // No IPv6 in the copy's namespace: its networks are IPv4 only, and the host guard's rules are
      // iptables (IPv4) ones; with IPv6 on, the copy's eth0 would get a link-local address from which
      // host services listening on [::] are one hop away through the bridge's own link-local address.
      Sysctls: { 'net.ipv6.conf.all.disable_ipv6': '1', 'net.ipv6.conf.default.disable_ipv6': '1', 'net.ipv6.conf.lo.disable_ipv6': '1' },
    },
  };
}
