import type { CopyLabels } from './copy-labels.js';

// What a copy is, whatever engine runs it (research/security.md §4): its image, command, env and
// limits. How an engine makes it from this is the engine's (docker-create-options.ts for the
// Docker Engine API, shared by the runner's DockerEngine and the CLI's local rehearsal).

/** The non-root user the offline base image defines (`app`, uid 1000); numeric, so it works in any image. */
export const COPY_USER = '1000:1000';
/** Seconds between SIGTERM and SIGKILL when a copy is stopped: demos hold no state worth a long goodbye. */
export const STOP_TIMEOUT_S = 2;

export interface CopySpec extends CopyLabels {
  /** The image, by id: a tag could be moved by another bundle's load, an id cannot. */
  image: string;
  /** The manifest's run.start; null leaves the image's own command. */
  start: string[] | null;
  /** The manifest's run.env (mock settings only). */
  env: Record<string, string>;
  port: number;
  memoryMb: number;
  cpus: number;
  pids: number;
  /** Size of each of the copy's writable places, /app and /tmp (RUNNER_COPY_WRITABLE_MB). */
  writableMb: number;
}

/** Words of an engine or a demo that ran out of writable space (ENOSPC in /app or /tmp). */
export const OUT_OF_WRITABLE_SPACE = /no space left on device|ENOSPC/i;

/** What to tell a builder whose copy ran out of writable space: the bound, where, and what to do. */
export const writableSpaceHint = (writableMb: number) =>
  `the copy ran out of writable space: it may write ${writableMb} MB to /app and ${writableMb} MB to /tmp (RUNNER_COPY_WRITABLE_MB), ` +
  'files the image already holds do not count; write less there, or keep what is big in the image (docs/cli.md)';

/** The address a copy listens on: all of its own network (it is alone there). */
export const COPY_HOST = '0.0.0.0';
