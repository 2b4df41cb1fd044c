import type Docker from 'dockerode';
import type { ContainerManifest } from '@demo-rooms/contract/manifest';
import type { Lines } from '../lines.js';
import { onThisMachine } from '../local-engine/engine-socket.js';
import { startCommandOf, type ImageConfig } from '../local-engine/image-checks.js';
import { pullLaid, type InEngine, type OnDisk } from './in-process-build.js';
import { rehearseLocally, type RunningRehearsal } from './rehearsal.js';

// A redeploy's image laid in-process goes into the local engine, and its rehearsal copy starts,
// the moment it is laid: beside the project folder's scan, whose module loading and reading is
// most of a small redeploy's time, rather than after it (issue 48; docs/decisions/cli.md).
// Only this machine's engine takes it (a unix socket on Linux: it pulls from this tool's
// 127.0.0.1), so nothing leaves the machine before the scans. What the rehearsal saw is looked at
// in its turn (prepare-container.ts): a scan or check that fails first is the refusal, and the
// copy is removed before the tool ends, as a rehearsal's copy always is.

/** How the copy was started: what prepare-container.ts would start it with, compared before it is taken. */
export interface RunAs {
  start: string[];
  env?: Record<string, string>;
}

export interface EarlyStart {
  /** The laid image in the engine, taken for the deploy; null when it was not pulled early (prepare-container.ts pulls it then). */
  inEngine(): Promise<InEngine | null>;
  /** Settles once the pull has ended and the engine has been asked to start the copy, or either will not happen. */
  launched: Promise<unknown>;
  /** The rehearsal under way when it was started with `run`; null otherwise (none started, or another run). */
  take(run: RunAs): Promise<RunningRehearsal | null>;
  /**
   * Ends what nobody took: the pull waited for, a rehearsal not taken stopped (its copy removed),
   * and an image pulled for a deploy that never took it (a refusal came first) removed.
   */
  release(): Promise<void>;
}

/** The pull and the rehearsal started as soon as `onDisk` has laid the image (podman on this machine only). */
export function startEarly(
  ctx: Lines,
  engine: Promise<Docker>,
  slug: string,
  onDisk: Promise<OnDisk>,
  manifest: ContainerManifest,
  healthTimeoutMs: number,
): EarlyStart {
  let released = false;
  let taken = false;
  let imageTaken = false;
  // The image's tag is written once the copy's checks are over (or no copy starts): pullLaid.
  let rehearsalOver!: () => void;
  const tidyAfter = new Promise<void>((resolve) => (rehearsalOver = resolve));
  const inEngine = (async () => {
    const laying = await onDisk;
    if (!laying || 'reason' in laying) return null;
    const docker = await engine;
    if (!onThisMachine(docker) || released) return null;
    return pullLaid(ctx, docker, slug, laying, tidyAfter);
  })();
  const started = (async () => {
    const [pulled, laying, docker] = await Promise.all([inEngine, onDisk, engine]);
    if (!pulled || 'reason' in pulled || !laying || 'reason' in laying || released) return null;
    // An image the checks will refuse (rule 11) is not started: its refusal comes in its turn.
    const image = (laying.laid.config.config ?? {}) as ImageConfig;
    const run = { ...manifest.run, start: manifest.run?.start ?? startCommandOf(image) };
    if (image.WorkingDir !== '/app' || run.start.length === 0) return null;
    // The live build's own image (only files outside its COPY steps changed): most often "nothing
    // changed" follows, with no rehearsal to start, so it waits for its turn.
    if (laying.laid.newLayers.length === 0 && laying.laid.configChanged.length === 0) return null;
    ctx.trace('rehearsal started beside the scan');
    return { run, rehearsing: rehearseLocally(docker, pulled.imageId, manifest, run, healthTimeoutMs, (line) => ctx.trace(line)) };
  })();
  void started
    .then((early) => early?.rehearsing.result)
    .catch(() => {})
    .finally(rehearsalOver);
  // Awaited by take or release: a failure meanwhile is not an unhandled one.
  inEngine.catch(() => {});
  started.catch(() => {});
  return {
    inEngine() {
      imageTaken = true;
      return inEngine;
    },
    // The engine's own work on the copy then runs while the scan's modules load; the calls that
    // make it (the /app overlay's, create, start) would wait behind that load.
    launched: started.then((early) => early?.rehearsing.startAsked).catch(() => null),
    async take(run) {
      const early = await started.catch(() => null);
      const same = early && JSON.stringify([early.run.start, early.run.env ?? {}]) === JSON.stringify([run.start, run.env ?? {}]);
      if (!early || taken || !same) return null;
      taken = true;
      return early.rehearsing;
    },
    async release() {
      released = true;
      rehearsalOver();
      const pulled = await inEngine.catch(() => null);
      const early = await started.catch(() => null);
      if (early && !taken) await early.rehearsing.stop();
      if (pulled && !('reason' in pulled) && !imageTaken)
        await pulled.tagged
          .then(() => engine)
          .then((docker) => docker.getImage(pulled.tag).remove())
          .catch(() => {});
    },
  };
}
