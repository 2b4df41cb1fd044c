import { access, mkdir, stat, writeFile } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { createInterface } from 'node:readline/promises';
import { Command, Option } from 'commander';
import { checkManifest, MANIFEST_SCHEMA_PATH } from '@demo-rooms/contract/manifest';
import type { CliContext } from '../context.js';
import { MANIFEST_FILE, problemsRefusal } from '../project/read-manifest.js';
import { Refusal } from '../refusal.js';
import { contextOf } from './command-context.js';
import { NODE_DOCKERIGNORE, nodeDockerfile } from '../project/node-dockerfile.js';

interface Options {
  kind?: 'static' | 'container';
  name?: string;
  output?: string;
  health?: string;
  force?: boolean;
}

export function initCommand(): Command {
  return new Command('init')
    .description('write a starter pitch.json, asking for the kind and name unless given')
    .argument('[dir]', 'the project folder', '.')
    .addOption(new Option('--kind <kind>', 'static (a folder of files) or container (a server)').choices(['static', 'container']))
    .option('--name <name>', "the demo's name; the project's address is made from it")
    .option('--output <folder>', 'static: the folder the build writes, with index.html in it')
    .option('--health <path>', 'container: the path that answers 200 once the server is ready (asked when not given)')
    .option('--force', 'overwrite an existing pitch.json')
    .action(async (dir: string, options: Options, command: Command) => init(contextOf(command), dir, options));
}

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

/** A name from a folder's: `acme-checkout` reads as `Acme checkout`. */
function nameFromFolder(dir: string): string {
  const words =
    basename(dir)
      .replace(/[-_.]+/g, ' ')
      .trim() || 'My demo';
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** Where a static site's built files usually are, in the order a folder is tried. */
const OUTPUT_FOLDERS = ['.', 'dist', 'build', 'out', 'public', 'site', '_site', 'www'];

/** The folder a build writes when none of the usual ones has an index.html yet. */
const OUTPUT_WHEN_NONE = 'dist';

/** The first usual folder with an index.html (the folder itself first); null when none has one yet. */
async function outputFound(dir: string): Promise<string | null> {
  for (const folder of OUTPUT_FOLDERS) if (await exists(join(dir, folder, 'index.html'))) return folder;
  return null;
}

/** A health path as given on the command line: a path on the server, starting with one slash. */
function checkedHealth(given: string): string {
  if (!/^\/(?!\/)\S*$/.test(given))
    throw new Refusal(`--health ${given} is not a path on the server`, 'give a path starting with /, e.g. --health /api/health');
  return given;
}

async function init(ctx: CliContext, folder: string, options: Options): Promise<void> {
  const dir = resolve(folder);
  const path = join(dir, MANIFEST_FILE);
  if (!options.force && (await exists(path))) throw new Refusal(`${path} already exists`, 'give --force to replace it');
  await projectFolder(ctx, dir);

  const guessedKind = (await exists(join(dir, 'Dockerfile'))) ? 'container' : 'static';
  const foundOutput = await outputFound(dir);
  let { kind, name, output, health } = options;
  if (health !== undefined) health = checkedHealth(health);
  // Ask only a person at a terminal; a script gets the guesses, so it never hangs on a prompt.
  if (process.stdin.isTTY && (!kind || !name || (kind !== 'static' && health === undefined))) {
    const prompt = createInterface({ input: process.stdin, output: process.stderr });
    try {
      while (!kind) {
        const answer = ((await prompt.question(`Kind: static or container? (${guessedKind}) `)).trim() || guessedKind).toLowerCase();
        if (answer === 'static' || answer === 'container') kind = answer;
      }
      name ??= (await prompt.question(`Name of the demo? (${nameFromFolder(dir)}) `)).trim() || nameFromFolder(dir);
      // A server's ready path varies (/health, /api/status, /): ask rather than assume one.
      while (kind === 'container' && health === undefined) {
        const answer = (await prompt.question('Path that answers 200 once the server is ready? (/healthz) ')).trim() || '/healthz';
        if (answer.startsWith('/')) health = answer;
        else ctx.info('A path on the server, starting with /.');
      }
    } finally {
      prompt.close();
    }
  }
  kind ??= guessedKind;
  name ??= nameFromFolder(dir);

  const manifest = {
    $schema: `${ctx.apiUrl}${MANIFEST_SCHEMA_PATH}`,
    kind,
    name,
    apps: [{ id: 'web', name: 'Web', path: '/', device: 'laptop' }],
    ...(kind === 'static' ? { output: output ?? foundOutput ?? OUTPUT_WHEN_NONE } : { health: health ?? '/healthz' }),
  };
  const checked = checkManifest(manifest, { requireRun: false });
  if (!checked.ok) throw problemsRefusal(checked.problems);
  await writeFile(path, `${JSON.stringify(manifest, null, 2)}\n`);
  ctx.info(`Wrote ${path} (${kind}). Check it with \`pitch validate\`, then \`pitch deploy\`.`);
  // An empty folder's first deploy would stop at "missing index.html": say so now, with where to put it.
  if (kind === 'static' && output === undefined && foundOutput === null)
    ctx.info(
      `No index.html yet in ${OUTPUT_FOLDERS.join(', ')}: pitch.json names ${OUTPUT_WHEN_NONE}. Build the site into ${OUTPUT_WHEN_NONE} (or give --output) before \`pitch deploy\`.`,
    );
  if (kind === 'container') {
    await writeNodeDockerfile(ctx, dir);
    ctx.info("The start command is taken from the image's CMD unless pitch.json gives run.start.");
  }
}

/** The project folder, made when it does not exist yet (`pitch init my-demo`, as `npm init` and `cargo new` take a new folder); a file of that name is refused. */
async function projectFolder(ctx: CliContext, dir: string): Promise<void> {
  const found = await stat(dir).catch(() => null);
  if (found?.isDirectory()) return;
  if (found) throw new Refusal(`${dir} is a file, not a folder`, 'give the project folder: pitch init [dir]');
  try {
    await mkdir(dir, { recursive: true });
  } catch (err) {
    throw new Refusal(`the folder ${dir} could not be made (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  ctx.info(`Made the folder ${dir}.`);
}

/**
 * A Node app (package.json) without a Dockerfile gets one, layered so that a code change sends one
 * small layer (node-dockerfile.ts), and a .dockerignore when it has none. Existing files stay.
 */
async function writeNodeDockerfile(ctx: CliContext, dir: string): Promise<void> {
  if ((await exists(join(dir, 'Dockerfile'))) || !(await exists(join(dir, 'package.json')))) return;
  await writeFile(join(dir, 'Dockerfile'), await nodeDockerfile(dir));
  ctx.info(`Wrote ${join(dir, 'Dockerfile')}: package*.json, then node_modules, then the code, each in its own layer.`);
  if (!(await exists(join(dir, '.dockerignore')))) {
    await writeFile(join(dir, '.dockerignore'), NODE_DOCKERIGNORE);
    ctx.info(`Wrote ${join(dir, '.dockerignore')}: what is never sent to the engine.`);
  }
}
