import { hostname } from 'node:os';
import type Docker from 'dockerode';
import { onThisMachine } from './engine-socket.js';

// A rehearsal's copy, and the holder of its /app, go when the rehearsal ends, also on Ctrl-C. A
// tool killed outright (kill -9, a closed terminal, a crash) leaves them: a copy still running, a
// holder that keeps its image. Each is labelled with the tool that made it (this machine's name and the process id),
// and each rehearsal removes those whose tool no longer runs on this machine. A process that is
// still running, or another machine's, is never judged: its rehearsal may be under way.

/** Every container a rehearsal makes carries it (local-copy.ts, rehearsal-app.ts). */
export const REHEARSAL_LABEL = 'pitch.rehearsal';
/** `<host name>:<process id>` of the tool that made the container. */
export const OWNER_LABEL = 'pitch.rehearsal.owner';

/** The labels of a container this tool makes for a rehearsal. */
export function rehearsalLabels(): Record<string, string> {
  return { [REHEARSAL_LABEL]: 'true', [OWNER_LABEL]: `${hostname()}:${process.pid}` };
}

/** Whether process `pid` of this machine has ended. */
function ended(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch (err) {
    // EPERM: it runs, as somebody else.
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/** Removes the rehearsal containers whose tool has ended on this machine; how many. `label` narrows the look (tests). */
export async function removeLeftRehearsals(docker: Docker, label = `${REHEARSAL_LABEL}=true`): Promise<number> {
  // A process id means nothing on another machine's engine.
  if (!onThisMachine(docker)) return 0;
  const here = `${hostname()}:`;
  const containers = await docker.listContainers({ all: true, filters: { label: [label] } });
  const left = containers.filter((container) => {
    const owner = container.Labels?.[OWNER_LABEL] ?? '';
    const pid = Number(owner.slice(here.length));
    return owner.startsWith(here) && Number.isInteger(pid) && pid > 0 && ended(pid);
  });
  // A copy first, then the holder it read from: the holder's removal unmounts the copy's lower.
  const copiesFirst = [...left].sort((a, b) => Number(a.State === 'created') - Number(b.State === 'created'));
  for (const container of copiesFirst)
    await docker
      .getContainer(container.Id)
      .remove({ force: true, v: true })
      .catch(() => {});
  return left.length;
}
