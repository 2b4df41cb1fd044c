import { join, posix, resolve } from 'node:path';
import type { StaticManifest } from '@demo-rooms/contract/manifest';
import type { Build } from '@demo-rooms/contract';
import type { CliContext } from '../context.js';
import { secretsRefusal } from '../scan/findings.js';
import { scanFolder } from '../scan/scan-folder.js';
import type { SecretScanner } from '../scan/secret-scan.js';
import { bytes } from '../ui/table.js';
import type { StepLog } from '../ui/step-log.js';
import type { Artefact, Unchanged } from './artefact.js';
import { packStaticSite, type PackedSite } from './pack-static.js';
import { staticRehearsal } from './rehearsal.js';
import { hasBuildScript, runBuildScript } from './static-build.js';
import { checkStaticOutput } from './static-output.js';
import { sameBuild } from './unchanged.js';

/**
 * Packing that has started ahead of its turn. It only writes a file of our own, so it may run
 * beside the checks before it; its result (or failure) is looked at only in its turn, and a check
 * that fails first stops it, so refusals still come in the spec's order.
 */
export interface PackInAdvance {
  done: Promise<PackedSite>;
  stop(): Promise<void>;
}

function packInAdvance(output: string, file: string): PackInAdvance {
  const stopper = new AbortController();
  const done = packStaticSite(output, file, stopper.signal);
  done.catch(() => {});
  return {
    done,
    async stop() {
      stopper.abort();
      await done.catch(() => {});
    },
  };
}

/**
 * With no build script the output is final before any check runs, so packing can start at once,
 * beside the project's scan; with one, it waits for the build (null).
 */
export async function packEarly(dir: string, manifest: StaticManifest, work: string): Promise<PackInAdvance | null> {
  if (await hasBuildScript(dir)) return null;
  return packInAdvance(resolve(dir, manifest.output), join(work, 'site.tar.gz'));
}

/**
 * A static build's half of the deploy: build, output checks, output scan, pack. Files and a
 * manifest the live build already has (`live`, unless --force) are answered as `unchanged`.
 */
export async function prepareStatic(
  ctx: CliContext,
  log: StepLog,
  dir: string,
  manifest: StaticManifest,
  scanner: SecretScanner,
  work: string,
  early: PackInAdvance | null,
  live: Build | null,
): Promise<Artefact | Unchanged> {
  if (!early) {
    log.begin('build', 'npm run build');
    await runBuildScript(dir, ctx.verbose);
    log.done('build', `done in ${log.elapsed()}`);
  } else {
    log.done('build', 'nothing to build (no package.json with a build script): the output is deployed as it is');
  }

  const output = await checkStaticOutput(dir, manifest);
  const file = join(work, 'site.tar.gz');
  const packing = early ?? packInAdvance(output, file);
  const scan = await scanFolder(scanner, output, (rel) => posix.join(manifest.output, rel)).catch(async (err) => {
    await packing.stop();
    throw err;
  });
  if (scan.findings.length > 0) {
    await packing.stop();
    throw secretsRefusal(`the output ${manifest.output}`, scan.findings);
  }
  log.done('scan', `output ${manifest.output}: ${scan.files} text files, ${scan.binary} binary, no secrets`);

  const packed = await packing.done;
  if (sameBuild(live, 'static', packed.digest, manifest)) return { unchanged: live };
  log.done('pack', `${packed.files} files, ${bytes(packed.contentBytes)} → ${bytes(packed.sizeBytes)} gzipped`);
  return { kind: 'static', file, sizeBytes: packed.sizeBytes, manifest, rehearsal: staticRehearsal(manifest) };
}
