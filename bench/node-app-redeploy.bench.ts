// A real app redeployed (issue 48, "done when"): a Node app with about 105 MB of `node_modules`
// inside /app, made here offline (a fake package of 100 files of 1 MB random bytes, which barely
// gzip, as built packages with binaries), on the offline Node base (localhost/demo-node:24), with
// the layered Dockerfile docs/cli.md shows (package*.json and node_modules in layers of their
// own, then the code by name). Per project, in one run:
//
// - its first deploy (the engine builds; not a target, printed for scale);
// - one line of server.js changed, deployed again: time end to end and layer bytes sent
//   (targets ≤ 5 s, ≤ 1.5x a static one-line redeploy of the same run, < 1 MB);
// - deployed again unchanged, then `pitch validate` of the same folder, BENCH_UNCHANGED_PAIRS (3)
//   times: each pair's ratio (target ≤ 1.2x);
// - a static demo deployed, one line changed, deployed again: the baseline;
// - a second project of the same workspace on the same base, deployed for the first time: the
//   bytes it sends (its own layer is 3 KB; the base's 127.8 MB are mounted from the first
//   project's repository, so anything near a megabyte would be base layers sent again; target < 1 MB).
//
// Beside each one-line redeploy's time, the whole machine's CPU-seconds from the tool's start to
// its exit (machine-cpu.ts), and how many of its cores that kept busy on average; the rehearsal
// copy's removal, by a process of its own after the exit, is outside both (pitch-deploy.ts).
//
// Median of BENCH_RUNS (3) projects each, with every run's figure. Needs the test services
// (`node infra/local/test.mjs --services`), then:
//   npx tsx bench/node-app-redeploy.bench.ts        (or `npm run bench -- node-app-redeploy [-- --json]`)
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { appendFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import { startPlatform } from '../test/support/platform.js';
import { testEnv } from '../test/support/services.js';
import { collectHarnessGarbage } from './harness-gc.js';
import { benchServerJs, pitchDeployer } from './pitch-deploy.js';
import { figure } from './report.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
/** One-line redeploys per project, each followed by a static one (pairs: the ratio's samples). */
const PAIRS = Number(process.env.BENCH_PAIRS ?? 1);
/** Unchanged redeploys per project, each followed by `pitch validate` of the folder (one sample swung 0.8–1.25x). */
const UNCHANGED_PAIRS = Number(process.env.BENCH_UNCHANGED_PAIRS ?? 3);
const MB = 1_000_000;
const MODULE_FILES = Number(process.env.BENCH_MODULE_FILES ?? 100);

const platform = await startPlatform({ workers: true });
const builder = await platform.person({ plan: 'enterprise' });
const work = await mkdtemp(join(tmpdir(), 'node-app-redeploy-bench-'));
const docker = new Docker({ socketPath: testEnv().DOCKER_HOST.replace(/^unix:\/\//, '') });
const app = { id: 'web', name: 'Web', path: '/', device: 'laptop' };

const NODE_DOCKERFILE = `FROM localhost/demo-node:24
WORKDIR /app
RUN mkdir -p /app/data && chown 1000:1000 /app/data
COPY package*.json ./
COPY node_modules ./node_modules
COPY server.js ./
CMD ["node", "server.js"]
`;

/** The Node app: package.json, node_modules/heavy (MODULE_FILES × 1 MB), server.js requiring it; a nonce in each. */
async function nodeApp(dir: string): Promise<void> {
  const nonce = randomBytes(8).toString('hex');
  const heavy = join(dir, 'node_modules', 'heavy');
  await mkdir(heavy, { recursive: true });
  const manifest = { kind: 'container', name: 'Bench node app', health: '/healthz', apps: [app], run: { start: ['node', 'server.js'] } };
  await writeFile(join(dir, 'pitch.json'), JSON.stringify(manifest));
  await writeFile(join(dir, 'Dockerfile'), NODE_DOCKERFILE);
  await writeFile(join(dir, '.dockerignore'), '.git\n.env\n*.log\n');
  await writeFile(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'bench-node-app', main: 'server.js', dependencies: { heavy: '1.0.0' } }),
  );
  await writeFile(join(heavy, 'package.json'), JSON.stringify({ name: 'heavy', version: '1.0.0', main: 'index.js', nonce }));
  await writeFile(join(heavy, 'index.js'), `module.exports = { parts: ${MODULE_FILES} };\n`);
  for (let i = 0; i < MODULE_FILES; i++) await writeFile(join(heavy, `part-${String(i).padStart(3, '0')}.bin`), randomBytes(MB));
  await writeFile(join(dir, 'server.js'), `// ${nonce}\nrequire('heavy');\n${benchServerJs}`);
}

/** A small container app on the same base (the second project of the workspace). */
async function smallApp(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  const manifest = { kind: 'container', name: 'Bench second', health: '/healthz', apps: [app], run: { start: ['node', 'server.js'] } };
  await writeFile(join(dir, 'pitch.json'), JSON.stringify(manifest));
  await writeFile(join(dir, 'Dockerfile'), 'FROM localhost/demo-node:24\nWORKDIR /app\nCOPY server.js .\nCMD ["node", "server.js"]\n');
  await writeFile(join(dir, 'server.js'), `// ${randomBytes(8).toString('hex')}\n${benchServerJs}`);
}

async function staticApp(dir: string): Promise<void> {
  await mkdir(join(dir, 'dist'), { recursive: true });
  await writeFile(join(dir, 'pitch.json'), JSON.stringify({ kind: 'static', name: 'Bench', output: 'dist', apps: [app] }));
  await writeFile(join(dir, 'dist', 'index.html'), `<!doctype html><title>Bench</title><p>${randomBytes(8).toString('hex')}</p>\n`);
}

/** `pitch validate <dir>` in its own process, timed from spawn to exit, as the deploys are. */
async function pitchValidate(dir: string): Promise<number> {
  collectHarnessGarbage();
  const started = performance.now();
  const child = spawn(process.execPath, ['services/cli/bin/pitch.mjs', 'validate', dir], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  if (code !== 0) throw new Error(`pitch validate failed:\n${stderr}`);
  return performance.now() - started;
}

const deploy = pitchDeployer(platform.baseUrl, builder.token, work);
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const list = (values: number[], digits = 0) => values.map((v) => v.toFixed(digits)).join(', ');

/** The push line's figures: "sent X KB in N new layers[, M layers (Y MB) taken from your workspace's other projects, not sent], ...". */
function pushed(stderr: string): { sent: number; mounted: number } {
  const size = (n: string, unit: string) => Number(n) * { B: 1, KB: 1e3, MB: 1e6, GB: 1e9 }[unit as 'B'];
  const m = /^(?:\[[\d.]+ s\] )?push +sent ([\d.]+) (B|KB|MB|GB) in (.*)$/m.exec(stderr);
  if (!m) throw new Error(`no push line in the deploy:\n${stderr}`);
  const mounted = /\(([\d.]+) (B|KB|MB|GB)\) taken from your workspace/.exec(m[3]);
  return { sent: size(m[1], m[2]), mounted: mounted ? size(mounted[1], mounted[2]) : 0 };
}

const removeImage = (slug: string) =>
  Promise.all(
    ['deploy', 'in-process'].map((tag) =>
      docker
        .getImage(`localhost/pitch-${slug}:${tag}`)
        .remove()
        .catch(() => {}),
    ),
  );

try {
  const r = {
    first: [] as number[],
    changed: [] as number[],
    changedSent: [] as number[],
    unchanged: [] as number[],
    validate: [] as number[],
    static: [] as number[],
    secondSent: [] as number[],
    secondMounted: [] as number[],
    load: [] as number[],
    /** The machine's CPU-seconds over each one-line redeploy and each static one. */
    changedCpu: [] as number[],
    staticCpu: [] as number[],
  };
  let lastChanged = '';
  let lastStatic = '';
  let lastSecond = '';
  let lastUnchanged = '';
  for (let i = 0; i < RUNS; i++) {
    r.load.push(loadavg()[0]);
    const slug = `bench-node-${randomBytes(4).toString('hex')}`;
    const dir = join(work, slug);
    await nodeApp(dir);
    const staticSlug = `bench-st-${randomBytes(4).toString('hex')}`;
    const staticDir = join(work, staticSlug);
    await staticApp(staticDir);
    await deploy(staticDir, staticSlug);
    try {
      r.first.push((await deploy(dir, slug)).ms);
      // Each one-line redeploy of the app, then one of the static demo: the pair's ratio shares the load of its moment.
      for (let j = 0; j < PAIRS; j++) {
        await appendFile(join(dir, 'server.js'), `// changed ${i}.${j}\n`);
        const changed = await deploy(dir, slug);
        r.changed.push(changed.ms);
        r.changedCpu.push(changed.cpuSeconds);
        r.changedSent.push(pushed(changed.stderr).sent);
        lastChanged = changed.stderr;
        await appendFile(join(staticDir, 'dist', 'index.html'), `<p>changed ${i}.${j}</p>\n`);
        const staticAgain = await deploy(staticDir, staticSlug);
        r.static.push(staticAgain.ms);
        r.staticCpu.push(staticAgain.cpuSeconds);
        lastStatic = staticAgain.stderr;
      }
      // Each unchanged redeploy, then `pitch validate` of the folder: the pair shares its moment's load.
      for (let j = 0; j < UNCHANGED_PAIRS; j++) {
        const unchanged = await deploy(dir, slug);
        if (!/nothing changed/.test(unchanged.stderr)) throw new Error(`the unchanged redeploy deployed:\n${unchanged.stderr}`);
        r.unchanged.push(unchanged.ms);
        lastUnchanged = unchanged.stderr;
        r.validate.push(await pitchValidate(dir));
      }
    } finally {
      await removeImage(slug);
    }

    const secondSlug = `bench-second-${randomBytes(4).toString('hex')}`;
    const secondDir = join(work, secondSlug);
    await smallApp(secondDir);
    try {
      const second = await deploy(secondDir, secondSlug);
      const p = pushed(second.stderr);
      r.secondSent.push(p.sent);
      r.secondMounted.push(p.mounted);
      lastSecond = second.stderr;
    } finally {
      await removeImage(secondSlug);
    }
  }
  const changed = median(r.changed);
  const stat = median(r.static);
  const unchanged = median(r.unchanged);
  const validate = median(r.validate);
  // Each one-line redeploy's ratio against the static one right after it, so the load of the moment is shared.
  const changedRatios = r.changed.map((ms, i) => ms / r.static[i]);
  const unchangedRatios = r.unchanged.map((ms, i) => ms / r.validate[i]);
  console.log(
    `\nNode app, ${MODULE_FILES} MB of node_modules in /app, ${RUNS} projects, ${PAIRS} one-line redeploy(s) each; load average at each run's start ${list(r.load, 2)}`,
  );
  console.log(`  first deploy (engine build):      ${median(r.first).toFixed(0)} ms (runs ${list(r.first)})`);
  console.log(
    `  one-line change, redeployed:      ${changed.toFixed(0)} ms (runs ${list(r.changed)}), layers sent ${list(r.changedSent)} B`,
  );
  console.log(`  static one-line redeploy:         ${stat.toFixed(0)} ms (runs ${list(r.static)})`);
  console.log(
    `  ratio changed / static:           ${(changed / stat).toFixed(2)}x of the medians, ${median(changedRatios).toFixed(2)}x the median pair (each pair: ${list(changedRatios, 2)}) (target ≤ 1.5x, ≤ 5 s)`,
  );
  // What each kind costs the machine: a redeploy that keeps every core busy ends sooner only by doing less.
  const cpuLine = (label: string, cpu: number[], ms: number[]) => {
    const busyCores = median(cpu.map((seconds, i) => (seconds * 1000) / ms[i]));
    console.log(
      `  ${label.padEnd(34)}${median(cpu).toFixed(2)} CPU-s (runs ${list(cpu, 2)}), ${busyCores.toFixed(2)} of ${cpus().length} cores busy`,
    );
  };
  cpuLine('machine CPU, one-line redeploy:', r.changedCpu, r.changed);
  cpuLine('machine CPU, static redeploy:', r.staticCpu, r.static);
  console.log(`  unchanged redeploy:               ${unchanged.toFixed(0)} ms (runs ${list(r.unchanged)})`);
  console.log(`  pitch validate, same folder:      ${validate.toFixed(0)} ms (runs ${list(r.validate)})`);
  console.log(
    `  ratio unchanged / validate:       ${(unchanged / validate).toFixed(2)}x of the medians, ${median(unchangedRatios).toFixed(2)}x the median pair (each pair: ${list(unchangedRatios, 2)}) (target ≤ 1.2x)`,
  );
  console.log(
    `  second project, same base, sent:  ${list(r.secondSent)} B; mounted from the first: ${list(
      r.secondMounted.map((b) => b / MB),
      1,
    )} MB (target < 1 MB sent)`,
  );
  figure({ name: 'node app one-line redeploy', value: changed, unit: 'ms' });
  figure({ name: 'node app one-line redeploy vs static redeploy', value: changed, unit: 'ms', baseline: stat });
  figure({
    name: 'node app one-line redeploy machine CPU vs static redeploy',
    value: median(r.changedCpu),
    unit: 'CPU-s',
    baseline: median(r.staticCpu),
  });
  figure({ name: 'node app layer bytes sent on a one-line redeploy', value: median(r.changedSent), unit: 'B', baseline: MB });
  figure({ name: 'node app unchanged redeploy vs pitch validate', value: unchanged, unit: 'ms', baseline: validate });
  figure({ name: 'second project on the same base: bytes sent', value: median(r.secondSent), unit: 'B', baseline: MB });
  console.log(`  last one-line redeploy's steps:\n${lastChanged.trimEnd().replace(/^/gm, '    ')}`);
  console.log(`  last unchanged redeploy's steps:\n${lastUnchanged.trimEnd().replace(/^/gm, '    ')}`);
  console.log(`  last static redeploy's steps:\n${lastStatic.trimEnd().replace(/^/gm, '    ')}`);
  console.log(`  last second project's first deploy:\n${lastSecond.trimEnd().replace(/^/gm, '    ')}`);
} finally {
  await rm(work, { recursive: true, force: true });
  await platform.close();
}
