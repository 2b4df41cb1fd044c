import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPlatform } from '../test/support/platform.js';
import { benchServerJs, pitchDeployer } from './pitch-deploy.js';
const platform = await startPlatform({ workers: true });
const builder = await platform.person({ plan: 'enterprise' });
const work = await mkdtemp(join(tmpdir(), 'zz-'));
const deploy = pitchDeployer(platform.baseUrl, builder.token, work);
const slug = `zz-${randomBytes(4).toString('hex')}`;
const dir = join(work, slug);
await mkdir(dir, { recursive: true });
await writeFile(join(dir, 'pitch.json'), JSON.stringify({ kind: 'container', name: 'Bench', health: '/healthz', apps: [{ id: 'web', name: 'Web', path: '/', device: 'laptop' }], run: { start: ['node', 'server.js'] } }));
await writeFile(join(dir, 'Dockerfile'), 'FROM localhost/demo-node:24\nWORKDIR /app\nCOPY server.js .\nCMD ["node", "server.js"]\n');
await writeFile(join(dir, 'server.js'), benchServerJs);
await deploy(dir, slug);
for (const kind of ['deploy', 'validate']) {
  for (let i = 0; i < 3; i++) {
    process.env.NODE_OPTIONS = i === 0 ? '--import /tmp/trace-load.mjs' : '';
    process.env.LOAD_TRACE_FILE = `/tmp/load-${kind}.txt`;
    const t = performance.now();
    const r = kind === 'deploy' ? await deploy(dir, slug) : await new Promise((res) => { const c = spawn(process.execPath, ['services/cli/bin/pitch.mjs', 'validate', dir], { stdio: 'inherit' }); c.on('close', res); });
    console.log(kind, i, (performance.now() - t).toFixed(0));
    if (kind === 'deploy' && i === 2) console.log((r as any).stderr);
  }
}
await platform.close();
