import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiError, type Build, type Client, type Project } from '@demo-rooms/contract';
import { checkManifestFolder } from '@demo-rooms/contract/node';
import type { ContainerManifest, FolderProblemCode, Manifest } from '@demo-rooms/contract/manifest';
import { ask, type CliContext } from '../context.js';
import { findProject, listProjects, projectSlugFor, readWorkspace, rememberProject } from '../project/find-project.js';
import { folderKey } from '../project/folder-key.js';
import { manifestOf, MANIFEST_FILE, problemsRefusal, readManifestFile, type ManifestFile } from '../project/read-manifest.js';
import { apiRefusal, Refusal, refusedStatus } from '../refusal.js';
import type { Finding } from '../scan/findings.js';
import type { SecretScanner } from '../scan/secret-scan.js';
import { StepLog } from '../ui/step-log.js';
import { bytes } from '../ui/table.js';
import type { Artefact } from './artefact.js';
import { readPages, sendPages } from './pages.js';
import { checkPlanAllows } from './plan-check.js';
import { liveBuildOf } from './unchanged.js';
// The scan, the static half, the upload and the push are loaded once a deploy goes past the
// unchanged check (below): an unchanged container deploy needs none of them, and loading them cost
// it about as long as the rest of its work (issue 48, item 3: "about the time of pitch validate").
import { cleanupsFinished } from './on-interrupt.js';
import { readContainerInputs, recordInputs } from './unchanged-inputs.js';
import { keepBlobs, type BlobToKeep } from '../registry/kept-blobs.js';
import type { ReadImage } from '../registry/read-image.js';
import type { OpenedUploads } from '../registry/push-image.js';
import type { AskedTarget, RegistryAsked } from '../registry/registry-target.js';
import { engineSocket } from '../local-engine/engine-socket.js';
import { socketEngine } from '../local-engine/socket-engine.js';
import { layeringNote } from '../local-engine/layering-note.js';
import type { OnDisk } from './in-process-build.js';
import type { EarlyStart } from './early-rehearsal.js';
import { startLintThread, type Linter } from '../scan/scan-thread.js';
import { claimHeadStart, headStartBegun, headStartLays, type AheadSide } from './head-start.js';
import { layEarly } from './lay-early.js';

export interface DeployOptions {
  project?: string;
  note?: string;
  live: boolean;
  healthTimeoutMs: number;
  /** Deploy even when the live build is already what this deploy would upload. */
  force: boolean;
}

// Folder problems whose place in the deploy's order comes after the build (spec 7): step paths
// need the built output; the Dockerfile's are checked on the built image.
const AFTER_BUILD = new Set<FolderProblemCode>(['step-path-missing', 'dockerfile-missing', 'workdir-not-app', 'cmd-missing']);

/**
 * Lines of pitch.json that hold run.env values: the start environment's scan owns those, and
 * names the variable, so the project scan leaves them to it.
 */
function runEnvLines(file: ManifestFile, manifest: Manifest): Set<number> {
  const values = Object.values((manifest.kind === 'container' && manifest.run?.env) || {})
    .filter(Boolean)
    .map((v) => JSON.stringify(v));
  const lines = new Set<number>();
  file.text.split('\n').forEach((line, index) => {
    if (values.some((value) => line.includes(value))) lines.add(index + 1);
  });
  return lines;
}

/** `pitch deploy`: each step in the spec's order; the first failure stops it with a refusal. */
export async function deploy(ctx: CliContext, folder: string, options: DeployOptions): Promise<void> {
  const { client, token } = await ctx.signedIn();
  const log = new StepLog(ctx);

  // 1. The manifest: schema, cross-field and folder rules (those that need no build).
  const file = await readManifestFile(folder);
  const manifest = manifestOf(file);
  const folderCheck = await checkManifestFolder(manifest, file.dir);
  const blocking = folderCheck.problems.filter((problem) => !AFTER_BUILD.has(problem.code));
  if (blocking.length > 0) throw problemsRefusal(blocking);
  for (const note of folderCheck.notes) if (note.code !== 'output-index-missing') log.note(note.message);
  log.done(
    'manifest',
    `${manifest.kind} build ${JSON.stringify(manifest.name)}: ${manifest.apps.length} app(s), ${manifest.story?.length ?? 0} story step(s)`,
  );

  // The plan, before anything is built or created: Free learns "static demos only" now, not
  // after an image build and with a project made on the way. Which project, asked beside it: a
  // bad token or an unreachable platform should stop us before the build. A container's build
  // inputs are read meanwhile (this machine's files only; nothing is sent): an unchanged redeploy
  // is those three and its preview address, and in turn they were most of its time (issue 48, item 3).
  const planChecked = startedAhead(checkPlanAllows(client, ctx.apiUrl, manifest));
  const asked = askWorkspace(client, manifest);
  const slug = await projectSlugFor(ctx, options.project, file.dir);
  const projectAsked = startedAhead(findProject(client, slug, asked.projects));
  // A container's secret scan thread (scan-thread.ts) starts loading its rules the moment the
  // inputs are known to have changed (an unchanged deploy scans nothing), beside the modules its
  // redeploy loads first; a static deploy's once the project is found (below).
  let linter: Linter | undefined;
  const goesOn = () => {
    linter ??= startLintThread();
    loadRedeployModules();
  };
  const { ahead, reading } =
    manifest.kind === 'container' ? containerReading(ctx, file, slug, options, projectAsked, planChecked, goesOn) : {};
  // The live build, asked as soon as the project is known: a redeploy lays its image on it, and
  // the answer used to come after the read, in the way of the laying (an unchanged deploy ends
  // without awaiting it).
  const liveAsked = options.force ? Promise.resolve(null) : startedAhead(projectAsked.then((found) => liveBuildOf(client, found)));
  await planChecked;
  ctx.trace('plan checked');
  let project = await projectAsked;
  ctx.trace('project found');

  const taken = (await ahead?.catch(() => null))?.side ?? null;
  if (taken) linter = taken.linter;
  const work = taken?.work ?? (await mkdtemp(join(tmpdir(), 'pitch-deploy-')));
  if (manifest.kind === 'static') linter = startLintThread();
  let onDisk: Promise<OnDisk> | undefined;
  let rehearsedEarly: Promise<EarlyStart> | undefined;
  let uploads: Promise<OpenedUploads | null> | undefined;
  const early = manifest.kind === 'static' ? await (await import('./prepare-static.js')).packEarly(file.dir, manifest, work) : null;
  try {
    // A container's build inputs, read before anything else is: when the live build was made
    // from the same, the deploy stops here, with no scan, build or push (issue 48, item 3).
    const inputs = reading ? await containerInputs(log, reading) : null;
    if (inputs?.unchanged && !options.force && project?.liveBuildId) {
      log.done(
        'unchanged',
        `${project.slug} already shows a build made from these files, Dockerfile and pitch.json (build ${project.liveBuildId}): nothing changed, nothing built or uploaded, no build made (--force deploys anyway)`,
      );
      await finishUnchanged(ctx, log, client, project, file.dir, manifest, options.live);
      return;
    }

    linter ??= startLintThread();
    void linter.ready.then((threaded) => ctx.trace(threaded ? 'scan thread ready' : 'scan rules run in this thread'));
    // Asked now, while the folder is scanned: a container's side (containerSide).
    const side =
      manifest.kind === 'container'
        ? containerSide(ctx, client, token.token, project, asked, work, slug, liveAsked, inputs, manifest, options, taken)
        : null;
    ({ onDisk, early: rehearsedEarly, uploads } = side ?? {});
    await side?.launched;
    ctx.trace('scan modules loading');
    const [scanner, { prepareStatic }, { pushAndBuild }, containerHalf] = await Promise.all([
      scanProject(log, file, manifest, linter, taken?.scanner),
      import('./prepare-static.js'),
      import('./push-build.js'),
      manifest.kind === 'container' ? import('./prepare-container.js') : null,
    ]);

    // 3-7. Build, checks, scans, rehearsal and pack, by kind.
    const live = await liveAsked;
    ctx.trace('live build read');
    const prepared =
      manifest.kind === 'static'
        ? await prepareStatic(ctx, log, file.dir, manifest, scanner, work, early, live)
        : await containerHalf!.prepareContainer(ctx, log, file.dir, manifest, scanner, work, {
            slug,
            healthTimeoutMs: options.healthTimeoutMs,
            live,
            registry: side!.registry,
            context: inputs?.context ?? null,
            recipe: inputs?.recipe,
            liveRecipe: inputs?.liveRecipe,
            engine: side?.engine,
            onDisk,
            early: rehearsedEarly,
            uploads,
          });
    const pages = await readPages(file.dir, manifest);

    if ('unchanged' in prepared) {
      // Nothing to upload and no build to make: the room already shows these files or this image, and this manifest.
      // The pages are the room's, not the build's, and are sent as every deploy sends them.
      const build = prepared.unchanged;
      log.done(
        'unchanged',
        `${project!.slug} already shows ${manifest.kind === 'static' ? 'these files' : 'this image'} and pitch.json (build ${build.id}): nothing changed, nothing uploaded, no build made (--force deploys anyway)`,
      );
      if (inputs && build.live) await recordInputs(ctx, file.dir, project!.id, build.id, inputs);
      await finishUnchanged(ctx, log, client, project!, file.dir, manifest, options.live, pages);
      return;
    }
    const artefact = prepared;

    // 8. Upload, build, pages, live.
    project ??= await createProject(ctx, client, slug, manifest.name, options.project !== undefined);
    await rememberProject(ctx, file.dir, project.slug);
    const buildId = artefact.image
      ? await pushAndBuild(
          ctx,
          log,
          client,
          token.token,
          project,
          artefact,
          artefact.image.read,
          options.note,
          (await side?.registry)?.repository,
        )
      : await upload(ctx, client, token.token, project, artefact, options.note);
    log.done('created', `build ${buildId}`);
    const remembered = startedAhead(rememberBuild(ctx, file.dir, project.id, buildId, inputs, artefact.image?.read));
    await showBuild(ctx, log, client, project, buildId, pages, options.live, remembered);
  } finally {
    await early?.stop();
    // A rehearsal started beside the scan that a refusal left untaken is stopped, and a pull
    // serving files from `work` ends, before `work` goes; so does a layer being written there.
    await (rehearsedEarly ?? taken?.early)?.then((started) => started.release()).catch(() => {});
    await (onDisk ?? taken?.onDisk)?.catch(() => {});
    await uploads?.then((left) => left?.close()).catch(() => {});
    await linter?.close();
    await rm(work, { recursive: true, force: true });
    // The rehearsal copy's removal, started when its checks passed, ends before the tool does.
    await cleanupsFinished();
  }
}

/**
 * The workspace's projects and (for a container) its account, asked once, beside the plan: the
 * project is found in the list, and a container's registry token names both (registry-target.ts),
 * so the token is one round trip past the project's answer where it was two, with the list asked twice.
 */
function askWorkspace(client: Client, manifest: Manifest): RegistryAsked & { projects: Promise<Project[]> } {
  return {
    projects: startedAhead(listProjects(client)),
    account: manifest.kind === 'container' ? startedAhead(readWorkspace(client)) : undefined,
  };
}

/**
 * Work started before it is awaited (a platform request, the engine's look-up, a read), handled
 * from the start: an unreachable platform refuses a request while the deploy reads the folder, and
 * an unhandled rejection would end the tool with Node's stack trace instead of the refusal's line.
 * Its await still throws.
 */
function startedAhead<T>(work: Promise<T>): Promise<T> {
  work.catch(() => {});
  return work;
}

/** 2. The project folder's secrets: a refusal when it holds one; the scanner, which the build's scans go on with. */
async function scanProject(log: StepLog, file: ManifestFile, manifest: Manifest, linter: Linter, begun?: SecretScanner) {
  const [{ secretsRefusal }, { scanFolder }, { SecretScanner }] = await Promise.all([
    import('../scan/findings.js'),
    import('../scan/scan-folder.js'),
    import('../scan/secret-scan.js'),
  ]);
  // A head start's scanner holds the folder's files read and linted while the engine pulled.
  const scanner = begun ?? new SecretScanner(linter);
  const envLines = runEnvLines(file, manifest);
  const ownedByEnvScan = (finding: Finding, rel: string) => rel === MANIFEST_FILE && envLines.has(finding.line);
  const projectScan = await scanFolder(scanner, file.dir, (rel) => rel, ownedByEnvScan);
  if (projectScan.findings.length > 0) throw secretsRefusal('the project folder', projectScan.findings);
  log.done('scan', `project: ${projectScan.files} text files, ${projectScan.binary} binary, no secrets`);
  return scanner;
}

/**
 * A container deploy's inputs: those a head start read (head-start.ts), when it was begun for the
 * same folder, pitch.json, project and live build as this deploy's; else read now.
 */
function containerReading(
  ctx: CliContext,
  file: ManifestFile,
  slug: string,
  options: DeployOptions,
  project: Promise<Project | null>,
  planChecked: Promise<unknown>,
  goesOn: () => void,
) {
  // Taken only once the plan has allowed the deploy too: what the deploy has taken its end
  // removes, and a refusal before (the plan's) leaves the head start to the tool's end.
  const allowed = Promise.all([project, planChecked]).then(([found]) => found);
  const ahead = headStartBegun() ? aheadFor(ctx, file, slug, options, allowed) : null;
  // A head start that lays the image has laid and pulled it already: nothing waits on this thread
  // but the platform's answers, so the scan's and the push's modules load while those are asked
  // (an unchanged redeploy needs none of them).
  if (ahead) void headStartLays().then((lays) => lays && loadScanAndPushModules());
  const reading = (ahead ?? Promise.resolve(null)).then((taken) => taken?.inputs ?? readInputs(ctx, file, project, options.force, goesOn));
  return { ahead: ahead && startedAhead(ahead), reading: startedAhead(reading) };
}

/** The head start begun as the tool started, once the project is known: this deploy's, or null (it is then ended). */
async function aheadFor(ctx: CliContext, file: ManifestFile, slug: string, options: DeployOptions, project: Promise<Project | null>) {
  const [key, found] = await Promise.all([folderKey(ctx.apiUrl, file.dir), project]);
  const of = { key, manifestText: file.text, slug, force: options.force, healthTimeoutMs: options.healthTimeoutMs };
  const taken = await claimHeadStart(of, found);
  ctx.trace(taken ? 'head start taken' : "head start not this deploy's: ended");
  return taken;
}

/**
 * The container build's inputs and their digest (unchanged-inputs.ts), read beside the plan's and
 * the project's questions; null without a Dockerfile (the build step refuses that).
 */
async function readInputs(ctx: CliContext, file: ManifestFile, project: Promise<Project | null>, force: boolean, goesOn: () => void) {
  if (
    !(await stat(join(file.dir, 'Dockerfile')).then(
      (info) => info.isFile(),
      () => false,
    ))
  )
    return null;
  // Over the socket with node:http when there is one: dockerode is loaded only past this check.
  const socket = await engineSocket();
  const docker = socket ? socketEngine(socket) : (await (await import('../local-engine/local-docker.js')).findEngine()).docker;
  ctx.trace('engine found');
  return readContainerInputs(ctx, docker, file.dir, file.text, project, force, goesOn);
}

/**
 * The modules a container deploy that goes on needs first (the laying, the early pull and
 * rehearsal, the engine's client), loaded from the moment the inputs are known to have changed: their
 * 0.05-0.07 s of this thread then overlaps the recipe's reads, where it came after them, in the
 * way of the laying. An unchanged deploy loads none of them.
 */
function loadRedeployModules(): void {
  for (const loading of [import('./in-process-build.js'), import('./early-rehearsal.js'), import('../local-engine/local-docker.js')])
    loading.catch(() => {});
}

/** The modules of the folder's scan and of a container's checks and push (the scan's rules load in their own thread). */
function loadScanAndPushModules(): void {
  for (const loading of [
    import('../scan/findings.js'),
    import('../scan/scan-folder.js'),
    import('../scan/secret-scan.js'),
    import('./prepare-static.js'),
    import('./push-build.js'),
    import('./prepare-container.js'),
  ])
    loading.catch(() => {});
}

/** The inputs read, with a line saying what was read and what .dockerignore kept back, and the layering note. */
async function containerInputs(log: StepLog, reading: ReturnType<typeof readInputs>) {
  const inputs = await reading;
  if (!inputs) return null;
  const files = inputs.context.entries.filter((entry) => entry.type === 'file').length;
  const keptBack = inputs.context.excludedBytes > 0 ? `; .dockerignore kept back ${bytes(inputs.context.excludedBytes)}` : '';
  log.done('read', `${files} files, ${bytes(inputs.context.bytes)} to build from${keptBack} (${(inputs.ms / 1000).toFixed(2)} s)`);
  const layering = layeringNote(inputs.dockerfile, inputs.context);
  if (layering) log.note(layering);
  return inputs;
}

/**
 * A container deploy's work started before the folder's scan: whether the platform has a registry,
 * with a token for the project's repository; the engine, looked for (its client loads meanwhile);
 * and a redeploy's image laid, pulled and rehearsed (layEarly), `launched` settling once that copy
 * has been asked to start or will not be. Failures meanwhile are not unhandled ones: prepareContainer awaits each.
 */
function containerSide(
  ctx: CliContext,
  client: Client,
  apiToken: string,
  project: Project | null,
  asked: RegistryAsked,
  work: string,
  slug: string,
  live: Promise<Build | null>,
  inputs: Awaited<ReturnType<typeof containerInputs>>,
  manifest: ContainerManifest,
  options: DeployOptions,
  ahead: AheadSide | null,
) {
  const registry = startedAhead(
    registryOf(ctx, client, apiToken, project, asked).then((answer) => (ctx.trace('registry token ready'), answer)),
  );
  ahead?.registry(registry);
  // The engine is looked for at once (over a TCP engine, dockerode loads: 0.05-0.07 s of this
  // thread), filling the wait for the live build's record and the token. The token is no longer on the way to the rehearsal (the
  // live build's config and tail are kept on this machine, kept-blobs.ts): only the layers' upload
  // after the scans needs it, so its round trips may wait behind the load.
  const engine = startedAhead(ahead?.engine ?? import('../local-engine/local-docker.js').then((m) => m.findEngine()));
  const laid = ahead ?? (inputs ? layEarly(ctx, engine, work, slug, live, registry, inputs, manifest, options.healthTimeoutMs) : null);
  const launched = laid?.early.then((started) => started.launched).catch(() => null);
  // The laid image's upload sessions, opened once the token has come: its push waits for the scans.
  const uploads = laid
    ? startedAhead(Promise.all([registry, laid.onDisk]).then(([answer, disk]) => uploadsFor(answer.repository, disk)))
    : undefined;
  return { registry, engine, onDisk: laid?.onDisk, early: laid?.early, launched, uploads };
}

async function uploadsFor(repository: AskedTarget | null, disk: OnDisk) {
  if (!repository || !disk || 'reason' in disk) return null;
  return (await import('../registry/push-image.js')).openUploads(repository, disk.laid.read);
}

/**
 * A new build's end: the pages sent, then the build made live and the ways in printed (or, with
 * --no-live, how to), while `remembered` (this folder's record of the build, on this machine's
 * disk) is written: each was 0.005-0.015 s in the other's way. It is awaited however the rest
 * ends: it reads layers kept in the deploy's work folder, which goes once the deploy ends.
 */
async function showBuild(
  ctx: CliContext,
  log: StepLog,
  client: Client,
  project: Project,
  buildId: string,
  pages: Awaited<ReturnType<typeof readPages>>,
  live: boolean,
  remembered: Promise<void>,
): Promise<void> {
  try {
    if (pages.length > 0) {
      await sendPages(client, project.id, pages);
      log.done('pages', `${pages.length} sent`);
    }
    if (live) {
      await ask('making the build live', () => client.call('makeLive', { params: { projectId: project.id, buildId } }));
      log.done('live', `${project.slug} now shows build ${buildId}`);
      await printWaysIn(ctx, client, project);
    } else {
      log.done('live', `not made live (--no-live): \`pitch rollback ${buildId}\` makes it live`);
      ctx.result(project.roomUrl);
    }
  } finally {
    await remembered.catch(() => {});
  }
  await remembered;
  ctx.trace('inputs recorded');
}

/** An unchanged deploy's end: the pages (the room's, not the build's) sent as every deploy sends them, then the ways in. */
async function finishUnchanged(
  ctx: CliContext,
  log: StepLog,
  client: Client,
  project: Project,
  dir: string,
  manifest: Manifest,
  live: boolean,
  pages?: Awaited<ReturnType<typeof readPages>>,
): Promise<void> {
  const sent = pages ?? (await readPages(dir, manifest));
  if (sent.length > 0) {
    await sendPages(client, project.id, sent);
    log.done('pages', `${sent.length} sent`);
  }
  if (live) await printWaysIn(ctx, client, project);
  else ctx.result(project.roomUrl);
}

/**
 * Whether the platform has an image registry, and the project's repository in it when the project
 * exists; a first deploy, which makes the project only once every check has passed, gets its
 * workspace's other repositories instead, where the engine's read may find its base layers.
 */
async function registryOf(ctx: CliContext, client: Client, apiToken: string, project: Project | null, asked: RegistryAsked) {
  const { registryTarget, workspaceLayers } = await import('../registry/registry-target.js');
  if (!project) return { ...(await workspaceLayers(ctx, client, apiToken, asked)), repository: null };
  const repository = await registryTarget(ctx, client, apiToken, project, asked);
  return { pushes: repository !== null, repository };
}

/**
 * Where to see the room now: a preview address (one use, two minutes, records nothing), printed
 * as the result, and the command that makes a viewer's private link. The project's own address
 * (`/p/<slug>`) is its public listing, which a private project does not have.
 */
export async function printWaysIn(ctx: CliContext, client: Client, project: Project): Promise<void> {
  const { url } = await ask('making a preview address', () => client.call('previewPass', { params: { projectId: project.id } }));
  ctx.info(`preview   ${url}  (opens the room as a viewer sees it; one use, within 2 minutes)`);
  ctx.info(`share     pitch links create "Viewer Name" --project ${project.slug}  (a private link for one viewer)`);
  ctx.result(url);
}

async function createProject(ctx: CliContext, client: Client, slug: string, name: string, fromFlag: boolean): Promise<Project> {
  try {
    const project = await ask(`creating the project ${slug}`, () => client.call('createProject', { body: { slug, name } }));
    // Its page in the web app, not `/p/<slug>`: that is the public listing a new project has not got.
    ctx.info(`project   ${slug} created: ${ctx.apiUrl}/projects/${project.id}`);
    return project;
  } catch (err) {
    if (refusedStatus(err) === 409) {
      const refusal = err as Refusal;
      const hint = `the address ${slug} belongs to another project; choose another with --project SLUG${fromFlag ? '' : ' (the name stays)'}`;
      throw new Refusal(refusal.message, hint, refusal.detail);
    }
    throw err;
  }
}

/**
 * startUpload, the bytes with a progress bar, then createBuild; answers the new build's id. The
 * bytes go straight to the object store when the platform offers it (parts, completeUpload),
 * else (an older platform) in one PUT to the api.
 */
async function upload(
  ctx: CliContext,
  client: Client,
  token: string,
  project: Project,
  artefact: Artefact,
  note: string | undefined,
): Promise<string> {
  const params = { projectId: project.id };
  const { uploadId, putUrl, direct } = await ask('starting the upload', () =>
    client.call('startUpload', { params, body: { kind: artefact.kind, sizeBytes: artefact.sizeBytes, direct: true } }),
  );
  const [{ ProgressBar }, { uploadDirect }, { uploadFile }] = await Promise.all([
    import('../ui/progress-bar.js'),
    import('./direct-upload.js'),
    import('./upload.js'),
  ]);
  const bar = new ProgressBar('upload', artefact.sizeBytes);
  try {
    if (direct) {
      const parts = await uploadDirect({ direct, file: artefact.file, onBytes: (n) => bar.add(n), onPart: (line) => bar.note(line) });
      await client.call('completeUpload', { params: { uploadId }, body: direct.multipart ? { parts } : {} });
    } else {
      await uploadFile({
        apiUrl: ctx.apiUrl,
        token,
        putUrl,
        file: artefact.file,
        sizeBytes: artefact.sizeBytes,
        onBytes: (n) => bar.add(n),
        onRetry: (line) => bar.note(line),
      });
    }
  } catch (err) {
    if (err instanceof ApiError) throw apiRefusal(`the upload of ${bytes(artefact.sizeBytes)}`, err);
    throw err;
  }
  bar.finish();
  const build = await ask('creating the build', () =>
    client.call('createBuild', {
      params,
      body: { uploadId, manifest: artefact.manifest, note, rehearsal: artefact.rehearsal },
    }),
  );
  return build.id;
}

/**
 * What this folder's next deploy starts from: the record of the inputs the build was made from,
 * and, for a pushed image, its config and the small layers this machine holds (spooled in the
 * deploy's work folder) kept, so that a redeploy lays its tail from them (kept-blobs.ts).
 */
async function rememberBuild(
  ctx: CliContext,
  dir: string,
  projectId: string,
  buildId: string,
  inputs: Awaited<ReturnType<typeof containerInputs>>,
  image: ReadImage | undefined,
): Promise<void> {
  const layers: BlobToKeep[] = (image?.layers ?? []).flatMap((layer) => (layer.file ? [{ digest: layer.digest, file: layer.file }] : []));
  await Promise.all([
    inputs ? recordInputs(ctx, dir, projectId, buildId, inputs, image && { image: image.configDigest, layers: image.layers }) : null,
    image ? keepBlobs(image.config ? [{ digest: image.configDigest, bytes: image.config }, ...layers] : layers) : null,
  ]);
}
