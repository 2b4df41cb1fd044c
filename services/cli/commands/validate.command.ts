import { Command } from 'commander';
import { checkManifest, type ManifestNote, type Problem } from '@demo-rooms/contract/manifest';
import { checkManifestFolder } from '@demo-rooms/contract/node';
import type { CliContext } from '../context.js';
import { formatProblem, MANIFEST_FILE, readManifestFile } from '../project/read-manifest.js';
import { contextOf } from './command-context.js';

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
  let notes: ManifestNote[] = [];
  if (!checked.ok) {
    // The folder rules read fields the schema vouches for, so they wait for a manifest that fits.
    problems = checked.problems;
  } else {
    const folder = await checkManifestFolder(checked.manifest, file.dir);
    problems = folder.problems;
    notes = folder.notes;
  }
  if (options.json) ctx.json({ ok: problems.length === 0, problems, notes });
  else {
    for (const problem of problems) ctx.info(formatProblem(problem));
    for (const note of notes) ctx.info(`note: ${note.message}`);
    if (problems.length === 0 && checked.ok)
      ctx.info(`${MANIFEST_FILE} is valid: a ${checked.manifest.kind} build named ${JSON.stringify(checked.manifest.name)}.`);
  }
  if (problems.length > 0) process.exitCode = 1;
}
