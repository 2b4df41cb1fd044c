import { stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { checkStaticStepPaths, stepPathCandidates } from '@demo-rooms/contract/node';
import type { StaticManifest } from '@demo-rooms/contract/manifest';
import { problemsRefusal } from '../project/read-manifest.js';
import { Refusal } from '../refusal.js';

const isFile = (path: string) =>
  stat(path).then(
    (info) => info.isFile(),
    () => false,
  );

/**
 * After the build: the output folder must hold index.html, and each story step's path must be a
 * file in it (rule 8, which waits for the build since the build writes the files). Answers the
 * output folder's absolute path.
 */
export async function checkStaticOutput(dir: string, manifest: StaticManifest): Promise<string> {
  const output = resolve(dir, manifest.output);
  const info = await stat(output).catch(() => null);
  if (!info?.isDirectory())
    throw new Refusal(
      `missing index.html: the output folder ${manifest.output} does not exist`,
      'the build must write it (output in pitch.json names it)',
    );
  if (!(await isFile(join(output, 'index.html'))))
    throw new Refusal(`missing index.html in the output folder ${manifest.output}`, 'a static build is served from its index.html');

  const present = new Set<string>();
  const candidates = (manifest.story ?? []).flatMap((step) => (step.path ? stepPathCandidates(step.path) : []));
  for (const candidate of new Set(candidates)) {
    if (await isFile(join(output, candidate))) present.add(candidate);
  }
  const problems = checkStaticStepPaths(manifest, present);
  if (problems.length > 0) throw problemsRefusal(problems);
  return output;
}
