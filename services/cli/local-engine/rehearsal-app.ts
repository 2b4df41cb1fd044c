import { randomBytes } from 'node:crypto';
import { lstat } from 'node:fs/promises';
import type Docker from 'dockerode';
import { engineDial } from './engine-dial.js';
import { rehearsalLabels } from './left-rehearsals.js';

// The rehearsal copy's /app on podman, laid as the runner lays a copy's (docs/decisions/
// copies-writable-layer.md): the image's own /app as the read-only lower of an overlay, so nothing
// is copied when the copy starts. A volume filled from the image copied all of /app first: 0.5 s
// of a redeploy for 100 MB of node_modules, and more for each file. The lower is the files of a
// never-started container of the image (the holder), mounted through podman's own API; the upper
// is the engine's, on its disk, and goes with the copy (`:O`). Whatever does not go to plan here
// gives null, and the copy gets the volume as before.

/** The Go FileMode bit podman's path stat sets for a symbolic link. */
const SYMLINK_MODE = 1 << 27;

const ENGINE_ANSWERS = { 200: true, 201: true, 404: 'no such container or path', 500: 'server error' } as const;

export interface RehearsalApp {
  /** The host path of the image's /app, as the engine sees it. */
  lower: string;
  /** The holder's id: its removal is one of the copy's (local-copy.ts). */
  holderId: string;
  /** Removes the holder (podman unmounts it with it); once the copy that reads from it is dead. */
  release(): Promise<void>;
}

/** Whether `path` is a plain folder as this machine sees it (no symbolic link); false when it cannot be seen. */
const plainFolderHere = (path: string) =>
  lstat(path).then(
    (info) => info.isDirectory(),
    () => false,
  );

/**
 * The image's /app mounted for an overlay; null when the engine cannot, or /app is not a plain
 * folder. `lookHere` is this machine's look at the mounted /app (tests stand in one that sees nothing).
 */
export async function rehearsalApp(docker: Docker, image: string, lookHere = plainFolderHere): Promise<RehearsalApp | null> {
  let holder: Docker.Container;
  try {
    holder = await docker.createContainer({
      name: `pitch-rehearsal-lower-${randomBytes(4).toString('hex')}`,
      Image: image,
      Entrypoint: ['/nonexistent'],
      Cmd: [],
      Labels: rehearsalLabels(),
      HostConfig: { NetworkMode: 'none' },
    });
  } catch {
    return null;
  }
  const release = () =>
    holder.remove({ force: true }).then(
      () => {},
      () => {},
    );
  try {
    const mounted = await engineDial(docker, {
      method: 'POST',
      path: `/v4.0.0/libpod/containers/${holder.id}/mount?`,
      statusCodes: ENGINE_ANSWERS,
    });
    const root = String(mounted).trim().replace(/^"|"$/g, '');
    if (!root.startsWith('/')) return (await release(), null);
    // A symbolic link would make the lower a folder of the host's: the lower is used only once
    // /app is known to be a plain folder. A rootful engine on this machine mounts where this tool
    // sees it too, and a look here takes no time; the engine's own stat (its mounts may be in a
    // namespace of its own: rootless, or another user's) took 0.03 s of every rehearsal's start.
    // Anything but a plain folder seen here is asked of the engine, whose answer decides.
    if (!(await lookHere(`${root}/app`)) && !isPlainFolder(await pathStat(docker, holder.id, '/app'))) return (await release(), null);
    return { lower: `${root}/app`, holderId: holder.id, release };
  } catch {
    await release();
    return null;
  }
}

interface PathStat {
  isDir?: boolean;
  mode?: number;
}

function isPlainFolder(stat: PathStat | null): boolean {
  return stat?.isDir === true && typeof stat.mode === 'number' && (stat.mode & SYMLINK_MODE) === 0;
}

/** The engine's stat of a path in a container (`HEAD /containers/{id}/archive`'s header); null when it has none. */
async function pathStat(docker: Docker, id: string, path: string): Promise<PathStat | null> {
  const reply = (await engineDial(docker, {
    method: 'HEAD',
    path: `/containers/${id}/archive?`,
    query: { path },
    stream: true,
    statusCodes: ENGINE_ANSWERS,
  })) as { headers: Record<string, string>; resume(): void };
  reply.resume();
  const header = reply.headers['x-docker-container-path-stat'];
  return header ? (JSON.parse(Buffer.from(header, 'base64').toString('utf8')) as PathStat) : null;
}
