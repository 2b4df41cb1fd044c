import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

// Engine calls a deploy need not wait for, handed at its end to a process of its own
// (engine-requests.mjs): the rehearsal copy's removal (podman's kill, removal, then its /app
// holder's) took the last 0.06-0.15 s of every container deploy, the tool waiting for the engine
// to tear down a copy whose checks were over. Only calls over a unix socket on this machine are
// handed over; a Ctrl-C, a refusal that stops a rehearsal, or a process that cannot be started
// still removes the copy in the tool (docs/decisions/cli-rehearsal.md, "The copy is removed after
// the tool ends, and the engine tidied after its checks").

/** Calls made in order over one engine socket. */
export interface EngineRequests {
  socketPath: string;
  requests: { method: 'POST' | 'DELETE'; path: string }[];
}

const SCRIPT = fileURLToPath(new URL('./engine-requests.mjs', import.meta.url));

/**
 * Starts one detached process making each job's calls, and does not wait for it; false when it
 * could not be started (the caller then makes the calls itself).
 */
export function requestAfterExit(jobs: EngineRequests[]): boolean {
  if (jobs.length === 0) return true;
  try {
    const child = spawn(process.execPath, [SCRIPT, JSON.stringify(jobs)], { detached: true, stdio: 'ignore' });
    // A spawn that fails later (it cannot here: this is Node's own binary) only leaves the copy to the next sweep.
    child.on('error', () => {});
    child.unref();
    return true;
  } catch {
    return false;
  }
}
