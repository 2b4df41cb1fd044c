// `pitch deploy` of a container demo twice from the same sources (issue 29, item 3): the first
// deploy builds the image from nothing, rehearses it, bundles and uploads it; the second finds
// every layer in the engine's cache, so the image is the live build's, and stops at "nothing
// changed" with nothing uploaded. Printed: both times and the unchanged redeploy as a ratio of the
// first deploy, median of 3 projects (BENCH_RUNS to change it). Needs the test services
// (`node infra/local/test.mjs --services`), then:
//   npx tsx bench/cli-redeploy.bench.ts
//
// The app: a small Node server with 40 MB of `node_modules` (random bytes, as built packages
// with binaries barely gzip), copied in by a `COPY . .` as the docs' Dockerfile does. Each
// project's files hold a nonce, so its first build cannot come from an earlier run's cache.

import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import { startPlatform } from '../test/support/platform.js';
import { testEnv } from '../test/support/services.js';
import { benchServerJs, pitchDeployer } from './pitch-deploy.js';
import { figure } from './report.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const MB = 1_000_000;

const platform = await startPlatform({ workers: true });
const builder = await platform.person({ plan: 'enterprise' });
const work = await mkdtemp(join(tmpdir(), 'cli-redeploy-bench-'));
const docker = new Docker({ socketPath: testEnv().DOCKER_HOST.replace(/^unix:\/\//, '') });

const server = benchServerJs;

async function makeApp(dir: string): Promise<void> {
  const nonce = randomBytes(8).toString('hex');
  await mkdir(join(dir, 'node_modules', 'heavy'), { recursive: true });
  await writeFile(
    join(dir, 'pitch.json'),
    JSON.stringify({
      kind: 'container',
      name: 'Bench container',
      health: '/healthz',
      apps: [{ id: 'web', name: 'Web', path: '/', device: 'laptop' }],
      run: { start: ['node', 'server.js'] },
    }),
  );
  await writeFile(join(dir, 'Dockerfile'), 'FROM localhost/demo-node:24\nWORKDIR /app\nCOPY . .\nCMD ["node", "server.js"]\n');
  await writeFile(join(dir, 'server.js'), `// ${nonce}\n${server}`);
  await writeFile(join(dir, 'node_modules', 'heavy', 'package.json'), JSON.stringify({ name: 'heavy', version: '1.0.0', nonce }));
  for (let i = 0; i < 40; i++) await writeFile(join(dir, 'node_modules', 'heavy', `part-${i}.bin`), randomBytes(MB));
}

const deployApp = pitchDeployer(platform.baseUrl, builder.token, work);

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const runs = (values: number[]) => values.map((ms) => ms.toFixed(0)).join(', ');

try {
  const firsts: number[] = [];
  const agains: number[] = [];
  let lastStderr = '';
  for (let i = 0; i < RUNS; i++) {
    const slug = `bench-redeploy-${randomBytes(4).toString('hex')}`;
    const dir = join(work, slug);
    await makeApp(dir);
    try {
      firsts.push((await deployApp(dir, slug)).ms);
      const again = await deployApp(dir, slug);
      if (!/nothing changed/.test(again.stderr)) throw new Error(`the unchanged redeploy deployed:\n${again.stderr}`);
      agains.push(again.ms);
      lastStderr = again.stderr;
    } finally {
      await docker
        .getImage(`localhost/pitch-${slug}:deploy`)
        .remove()
        .catch(() => {});
    }
  }
  const first = median(firsts);
  const again = median(agains);
  console.log(`\ncontainer demo with 40 MB of node_modules, ${RUNS} projects`);
  console.log(`  first deploy (image built from nothing):   ${first.toFixed(0)} ms (runs ${runs(firsts)})`);
  console.log(`  unchanged redeploy ("nothing changed"):    ${again.toFixed(0)} ms (runs ${runs(agains)})`);
  console.log(`  ratio unchanged redeploy / first deploy:   ${(again / first).toFixed(2)}x`);
  figure({ name: 'unchanged redeploy', value: again, unit: 'ms', baseline: first });
  console.log(
    `  last redeploy's progress:\n${lastStderr
      .trimEnd()
      .split('\n')
      .map((line) => `    ${line}`)
      .join('\n')}`,
  );
} finally {
  await rm(work, { recursive: true, force: true });
  await platform.close();
}
