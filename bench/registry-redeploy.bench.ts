// A redeploy through the image registry (issue 32): `pitch deploy` of a container demo on the
// offline Node base (localhost/demo-node:24), one line of its server changed, deployed again. The
// second deploy pushes only the changed layer. Printed: the layers' bytes it sent (target < 1 MB)
// and its time against a static demo's redeploy after a one-line change, measured in the same run
// (target ≤ 1.5x, issue 48), with where each redeploy's time went (their step lines, each with its time since
// the tool started: PITCH_TIMINGS, set by pitchDeployer). Median of
// BENCH_RUNS (3) projects each. Needs the test services (`node infra/local/test.mjs --services`):
//   npx tsx bench/registry-redeploy.bench.ts
import { randomBytes } from 'node:crypto';
import { appendFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import { startPlatform } from '../test/support/platform.js';
import { testEnv } from '../test/support/services.js';
import { benchServerJs, pitchDeployer } from './pitch-deploy.js';
import { figure } from './report.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const platform = await startPlatform({ workers: true });
const builder = await platform.person({ plan: 'enterprise' });
const work = await mkdtemp(join(tmpdir(), 'registry-redeploy-bench-'));
const docker = new Docker({ socketPath: testEnv().DOCKER_HOST.replace(/^unix:\/\//, '') });

const server = benchServerJs;
const app = { id: 'web', name: 'Web', path: '/', device: 'laptop' };

async function containerApp(dir: string) {
  await mkdir(dir, { recursive: true });
  const manifest = { kind: 'container', name: 'Bench', health: '/healthz', apps: [app], run: { start: ['node', 'server.js'] } };
  await writeFile(join(dir, 'pitch.json'), JSON.stringify(manifest));
  await writeFile(join(dir, 'Dockerfile'), 'FROM localhost/demo-node:24\nWORKDIR /app\nCOPY server.js .\nCMD ["node", "server.js"]\n');
  await writeFile(join(dir, 'server.js'), `// ${randomBytes(8).toString('hex')}\n${server}`);
}

async function staticApp(dir: string) {
  await mkdir(join(dir, 'dist'), { recursive: true });
  await writeFile(join(dir, 'pitch.json'), JSON.stringify({ kind: 'static', name: 'Bench', output: 'dist', apps: [app] }));
  await writeFile(join(dir, 'dist', 'index.html'), `<!doctype html><title>Bench</title><p>${randomBytes(8).toString('hex')}</p>\n`);
}

const deploy = pitchDeployer(platform.baseUrl, builder.token, work);
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const runs = (values: number[]) => values.map((ms) => ms.toFixed(0)).join(', ');

/** The push line's sent bytes: "sent X KB in N new layers, M layers already there (Y MB)". */
function sentBytes(stderr: string): number {
  const m = /^(?:\[[\d.]+ s\] )?push +sent ([\d.]+) (B|KB|MB|GB) in /m.exec(stderr);
  if (!m) throw new Error(`no push line in the redeploy:\n${stderr}`);
  return Number(m[1]) * { B: 1, KB: 1e3, MB: 1e6, GB: 1e9 }[m[2] as 'B'];
}

try {
  const containerTimes: number[] = [];
  const staticTimes: number[] = [];
  const sent: number[] = [];
  let lastStderr = '';
  let lastStaticStderr = '';
  for (let i = 0; i < RUNS; i++) {
    const slug = `bench-reg-${randomBytes(4).toString('hex')}`;
    const dir = join(work, slug);
    await containerApp(dir);
    try {
      await deploy(dir, slug);
      await appendFile(join(dir, 'server.js'), `// changed ${i}\n`);
      const again = await deploy(dir, slug);
      containerTimes.push(again.ms);
      sent.push(sentBytes(again.stderr));
      lastStderr = again.stderr;
    } finally {
      await docker
        .getImage(`localhost/pitch-${slug}:deploy`)
        .remove()
        .catch(() => {});
    }
    const staticSlug = `bench-st-${randomBytes(4).toString('hex')}`;
    const staticDir = join(work, staticSlug);
    await staticApp(staticDir);
    await deploy(staticDir, staticSlug);
    await appendFile(join(staticDir, 'dist', 'index.html'), `<p>changed ${i}</p>\n`);
    const staticAgain = await deploy(staticDir, staticSlug);
    staticTimes.push(staticAgain.ms);
    lastStaticStderr = staticAgain.stderr;
  }
  const container = median(containerTimes);
  const stat = median(staticTimes);
  console.log(`\none-line change, redeployed; ${RUNS} projects each`);
  console.log(`  container redeploy: ${container.toFixed(0)} ms (runs ${runs(containerTimes)}), layers sent ${runs(sent)} bytes`);
  console.log(`  static redeploy:    ${stat.toFixed(0)} ms (runs ${runs(staticTimes)})`);
  console.log(`  ratio container / static redeploy: ${(container / stat).toFixed(2)}x (target ≤ 1.5x)`);
  figure({ name: 'layer bytes sent on a one-line redeploy', value: median(sent), unit: 'B', baseline: 1_000_000 });
  figure({ name: 'container redeploy vs static redeploy', value: container, unit: 'ms', baseline: stat });
  console.log(`  last container redeploy's steps:\n${lastStderr.trimEnd().replace(/^/gm, '    ')}`);
  console.log(`  last static redeploy's steps:\n${lastStaticStderr.trimEnd().replace(/^/gm, '    ')}`);
} finally {
  await rm(work, { recursive: true, force: true });
  await platform.close();
}
