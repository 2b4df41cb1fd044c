import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Project } from '@demo-rooms/contract';
import type { ContainerManifest } from '@demo-rooms/contract/manifest';
import type { Lines } from '../lines.js';
import type { FoundEngine } from '../local-engine/local-docker.js';
import type { SecretScanner } from '../scan/secret-scan.js';
import type { Linter } from '../scan/scan-thread.js';
import type { EarlyStart } from './early-rehearsal.js';
import type { InProcessOptions, OnDisk } from './in-process-build.js';
import type { ContainerInputs } from './unchanged-inputs.js';

// A container redeploy's engine work started with the tool (issue 48, docs/decisions/cli-rehearsal.md).
// Loading the tool's modules holds its thread for about 0.3 s before a deploy reads its first
// file, and the engine's share of a redeploy (the pull, the copy's start, its health) then waited
// on its turn with that thread idle. `pitch deploy` (bin/pitch.mjs) starts this first: from what
// this machine alone holds (pitch.json, the folder's record of its last deploy: the project, the
// live build and its image id) it reads the inputs and, when they changed, lays the image on the
// live one, pulls it and starts the rehearsal copy, while the rest of the tool loads. Nothing
// leaves this machine. The deploy takes it (claimHeadStart) only when it was started for the same
// folder, platform, pitch.json, project, health timeout and live build as the deploy then finds;
// anything else (another build made live meanwhile, --force, a refusal first) and it is ended:
// its copy and image removed, the deploy reads and lays as before. PITCH_HEAD_START=0 turns it off.

/** How long the rehearsal waits for a copy's health path, by default: the runner's (RUNNER_HEALTH_TIMEOUT_S). */
export const DEFAULT_HEALTH_SECONDS = 30;

/** What a deploy asks for: a head start is its own only when it was started for exactly this. */
export interface AheadOf {
  /** folderKey: the platform's address and the folder's real path. */
  key: string;
  manifestText: string;
  slug: string;
  force: boolean;
  healthTimeoutMs: number;
}

/** The laying, pull and rehearsal under way (when the inputs changed), for the deploy to go on with. */
export interface AheadSide {
  work: string;
  engine: Promise<FoundEngine>;
  onDisk: Promise<OnDisk>;
  early: Promise<EarlyStart>;
  /** The scan thread; its close first ends the scan below (no file read after it, those under way scanned). */
  linter: Linter;
  /**
   * The project folder's secret scan, begun once the image is laid, while the engine pulls it and
   * this thread mostly waits: the deploy's own scan of the folder (deploy-flow.ts) asks the same
   * scanner, which reads and lints each file once, so it finds its answers there or under way.
   */
  scanner: SecretScanner;
  /** The platform's registry answer, once the deploy has it: the laying asks it only for what this machine does not keep. */
  registry(answer: InProcessOptions['registry']): void;
  /** Settles when the laying or the pull first needs that answer. */
  wantsRegistry: Promise<void>;
}

export interface HeadStart {
  inputs: ContainerInputs;
  side: AheadSide | null;
}

interface Begun extends Omit<AheadOf, 'force'>, HeadStart {
  recorded: { projectId: string; buildId: string };
  release(): Promise<void>;
}

let begun: Promise<Begun | null> | null = null;
let taken = false;
let released: Promise<void> | null = null;
/** Settles once the head start is taken or being ended: until then a Ctrl-C ends it. */
let settle!: () => void;
const settled = new Promise<void>((resolve) => (settle = resolve));

/**
 * Starts the head start when `argv` is a `pitch deploy` of a container folder it can read;
 * settles once its image is pulled into the engine and the copy's start asked, or it has nothing
 * to do. The tool loads the rest of itself only then, while the engine starts the copy: loaded
 * beside the laying and the pull (which this thread serves), the rest held them up.
 */
export async function startAhead(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<void> {
  if (env.PITCH_HEAD_START === '0') return;
  const args = deployArgs(argv, env);
  if (!args) return;
  // Read before any module loads: a static deploy's costs this read and nothing more.
  const text = await readFile(join(args.dir, 'pitch.json'), 'utf8').catch(() => '');
  if (!/"kind"\s*:\s*"container"/.test(text)) return;
  begun = begin(args, env).catch(() => null);
  // Or once the laying needs the platform's registry (blobs this machine does not keep): its
  // answer comes from the deploy, which must load to ask for it.
  await begun
    .then((mine) => mine?.side && Promise.race([mine.side.early.then((early) => early.launched), mine.side.wantsRegistry]))
    .catch(() => {});
}

/** Whether a head start was begun in this run (so a deploy asks for it). */
export const headStartBegun = (): boolean => begun !== null;

/** Whether the head start found the inputs changed and lays the image (an unchanged one lays nothing). */
export const headStartLays = async (): Promise<boolean> => ((await begun)?.side ?? null) !== null;

/** The head start, when it was started for exactly this deploy and `project` still shows the build it laid on; else it is ended. */
export async function claimHeadStart(of: AheadOf, project: Pick<Project, 'id' | 'liveBuildId'> | null): Promise<HeadStart | null> {
  const mine = await begun;
  if (!mine || taken || released) return null;
  const same =
    mine.key === of.key &&
    mine.manifestText === of.manifestText &&
    mine.slug === of.slug &&
    mine.healthTimeoutMs === of.healthTimeoutMs &&
    !of.force &&
    project?.id === mine.recorded.projectId &&
    project.liveBuildId === mine.recorded.buildId;
  if (!same) {
    await headStartSettled();
    return null;
  }
  taken = true;
  settle();
  return { inputs: mine.inputs, side: mine.side };
}

/** Ends a head start nobody took (its copy, image, thread and work folder); the tool's end awaits it. */
export function headStartSettled(): Promise<void> {
  if (taken || !begun) return Promise.resolve();
  released ??= begun.then((mine) => mine?.release());
  settle();
  return released;
}

type DeployArgs = { dir: string; project?: string; healthTimeoutMs: number };

/** Options that take a value, and those that do not, of `pitch deploy` (deploy.command.ts); any other argument and there is no head start. */
const VALUED = new Set(['--project', '--note', '--health-timeout']);
const FLAGS = new Set(['--no-live', '--verbose']);

/** The folder, project and health timeout of `deploy [dir] [options]`; null for anything else or anything unsure (--force among them). */
export function deployArgs(argv: string[], env: NodeJS.ProcessEnv): DeployArgs | null {
  if (argv[0] !== 'deploy') return null;
  let dir: string | undefined;
  const values = new Map<string, string>();
  for (let i = 1; i < argv.length; i++) {
    const arg = argv[i];
    const at = arg.startsWith('--') ? arg.indexOf('=') : -1;
    const name = at > 0 ? arg.slice(0, at) : arg;
    if (VALUED.has(name)) {
      const value = at > 0 ? arg.slice(at + 1) : argv[++i];
      if (value === undefined) return null;
      values.set(name, value);
    } else if (!FLAGS.has(arg)) {
      if (arg.startsWith('-') || dir !== undefined) return null;
      dir = arg;
    }
  }
  const seconds = Number(values.get('--health-timeout') ?? env.PITCH_HEALTH_TIMEOUT ?? DEFAULT_HEALTH_SECONDS);
  if (!(seconds > 0) || !Number.isFinite(seconds)) return null;
  return { dir: dir ?? '.', project: values.get('--project'), healthTimeoutMs: seconds * 1000 };
}

async function begin(args: DeployArgs, env: NodeJS.ProcessEnv): Promise<Begun | null> {
  // None of these loads the contract's route table (the platform's client, 0.05-0.08 s of this
  // thread): the image is laid and pulled first, and the client loads with the rest of the tool.
  const [{ readManifestFile, manifestOf }, { Lines }, { readConfig }, { folderKey }, { engineSocket }, { socketEngine }] =
    await Promise.all([
      import('../project/read-manifest.js'),
      import('../lines.js'),
      import('../config/config-file.js'),
      import('../project/folder-key.js'),
      import('../local-engine/engine-socket.js'),
      import('../local-engine/socket-engine.js'),
    ]);
  const file = await readManifestFile(args.dir);
  // A pitch.json the deploy will refuse throws here: nothing is started.
  const manifest = manifestOf(file);
  if (manifest.kind !== 'container') return null;
  const ctx = new Lines({}, env, true);
  const key = await folderKey(ctx.apiUrl, file.dir);
  const config = await readConfig();
  const recorded = config.builtFrom[key];
  const slug = args.project ?? config.projects[key];
  const socket = await engineSocket(env);
  // A first deploy, a record from before image ids were kept, or an engine not on a socket here: the deploy starts it all.
  if (!recorded?.image || !slug || !socket) return null;
  const [{ readContainerInputs }, { startLintThread }] = await Promise.all([
    import('./unchanged-inputs.js'),
    import('../scan/scan-thread.js'),
  ]);
  let linter: Linter | undefined;
  const lastBuild = { id: recorded.projectId, liveBuildId: recorded.buildId };
  const inputs = await readContainerInputs(ctx, socketEngine(socket), file.dir, file.text, Promise.resolve(lastBuild), false, () => {
    linter = startLintThread();
  });
  const side = inputs.unchanged
    ? null
    : await startSide(ctx, file.dir, inputs, manifest, slug, recorded.image, args.healthTimeoutMs, linter!);
  const release = async () => {
    side?.registry(Promise.resolve({ pushes: false, repository: null }));
    await side?.early.then((early) => early.release()).catch(() => {});
    await side?.onDisk.catch(() => {});
    await (side?.linter ?? linter)?.close();
    if (side) await rm(side.work, { recursive: true, force: true });
  };
  const { cleanedUpOnInterrupt } = await import('./on-interrupt.js');
  // A Ctrl-C before the deploy takes it ends it as the deploy's end would.
  void cleanedUpOnInterrupt(
    () => settled,
    async () => {
      if (!taken) await headStartSettled();
    },
  ).catch(() => {});
  return { key, manifestText: file.text, slug, healthTimeoutMs: args.healthTimeoutMs, inputs, side, recorded, release };
}

/** The redeploy's image laid on the live build's (as the record names it), pulled and rehearsed: layEarly, as the deploy starts it. */
async function startSide(
  ctx: Lines,
  dir: string,
  inputs: ContainerInputs,
  manifest: ContainerManifest,
  slug: string,
  image: string,
  healthTimeoutMs: number,
  linter: Linter,
): Promise<AheadSide> {
  const [{ layEarly }, { SecretScanner }, { scanFolder }] = await Promise.all([
    import('./lay-early.js'),
    import('../scan/secret-scan.js'),
    import('../scan/scan-folder.js'),
  ]);
  const work = await mkdtemp(join(tmpdir(), 'pitch-deploy-'));
  const engine = import('../local-engine/local-docker.js').then((m) => m.findEngine());
  let answer!: (registry: InProcessOptions['registry']) => void;
  const registry = new Promise<Awaited<InProcessOptions['registry']>>((resolve) => (answer = (given) => resolve(given)));
  const live = Promise.resolve({ kind: 'container' as const, digest: image });
  let wanted!: () => void;
  const wantsRegistry = new Promise<void>((resolve) => (wanted = resolve));
  const laid = layEarly(ctx, engine, work, slug, live, registry, inputs, manifest, healthTimeoutMs, wanted);
  const scanner = new SecretScanner(linter);
  const stopScan = new AbortController();
  // Its answer is the deploy's to read (and refuse on): here only the files are read and linted.
  const scanned = laid.onDisk
    .catch(() => {})
    .then(() => scanFolder(scanner, dir, (rel) => rel, undefined, stopScan.signal))
    .then(
      () => stopScan.signal.aborted || ctx.trace('project folder scanned ahead'),
      () => {},
    );
  const closing: Linter = {
    ...linter,
    async close() {
      stopScan.abort();
      await scanned;
      await linter.close();
    },
  };
  return { work, engine, ...laid, linter: closing, scanner, registry: answer, wantsRegistry };
}
