import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Command } from 'commander';
import { checkManifest, type ManifestNote, type Problem } from '@demo-rooms/contract/manifest';
import { checkManifestFolder } from '@demo-rooms/contract/node';
import type { CliContext } from '../context.js';
import { formatProblem, MANIFEST_FILE, readManifestFile } from '../project/read-manifest.js';
import { contextOf } from './command-context.js';
import { readBuildContext } from '../local-engine/build-context.js';
import { layeringNote } from '../local-engine/layering-note.js';

/** The Dockerfile's layering note (layering-note.ts), or null; none without a Dockerfile. */
async function dockerfileLayeringNote(dir: string): Promise<string | null> {
  const dockerfile = await readFile(join(dir, 'Dockerfile'), 'utf8').catch(() => null);
  return dockerfile === null ? null : layeringNote(dockerfile, await readBuildContext(dir));
}

export function validateCommand(): Command {
  return new Command('validate')
    .description("check pitch.json: its fields, the rules between them, and the folder's files; prints every problem and note")
    .argument('[dir]', 'the project folder', '.')
    .option('--json', 'print {ok, problems, notes} as JSON')
    .action(async (dir: string, options: { json?: boolean }, command: Command) => validate(contextOf(command), dir, options));
}

async function validate(ctx: CliContext, dir: string, options: { json?: boolean }): Promise<void> {
  const file = await readManifestFile(dir);
  const checked = checkManifest(file.json, { requireRun: false });
  let problems: Problem[];
  // The contract's notes, and the tool's own (copy-carries-node-modules: it reads the build context).
  let notes: { code: ManifestNote['code'] | 'copy-carries-node-modules'; message: string }[] = [];
  if (!checked.ok) {
    // The folder rules read fields the schema vouches for, so they wait for a manifest that fits.
    problems = checked.problems;
  } else {
    const folder = await checkManifestFolder(checked.manifest, file.dir);
    problems = folder.problems;
    notes = folder.notes;
    if (checked.manifest.kind === 'container') {
      const layering = await dockerfileLayeringNote(file.dir);
      if (layering) notes = [...notes, { code: 'copy-carries-node-modules', message: layering }];
    }
  }
  if (options.json) ctx.json({ ok: problems.length === 0, problems, notes });
  else {
    for (const problem of problems) ctx.info(formatProblem(problem));
    for (const note of notes) ctx.info(`note: ${note.message}`);
    if (problems.length === 0 && checked.ok)
      ctx.info(`${MANIFEST_FILE} is valid: a ${checked.manifest.kind} build named ${JSON.stringify(checked.manifest.name)}.`);
    // Each problem reads like a compiler's (file: field: message); the last line says why the exit is 1, as a refusal's would.
    else
      ctx.info(
        `pitch: ${problems.length} problem${problems.length === 1 ? '' : 's'}: fix ${problems.length === 1 ? 'it' : 'them'}, then run pitch validate again`,
      );
  }
  if (problems.length > 0) process.exitCode = 1;
}
