// The room's shell at the page cap: 30 pages of ~160 KB of markdown each (4.8 MB, near the
// room's 5,000,000-character total). The shell carries none of the pages (each has its own
// address, loaded when its tab opens), so its time should be that of a small dynamic page.
// Measured by the same load generator in its own process, one request at a time, against the
// same process's /healthz as the baseline. Target: the shell in under 50 ms.
// Needs the test services (`node infra/local/test.mjs --services`); `npm run bench room-shell`.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { startPlatform } from '../test/support/platform.js';
import { desktopChrome } from '../test/support/browser.js';
import { deployStaticRoom, hit, shellData, type Jar } from '../test/support/room.js';
import { renderPage } from '../services/core/rules/room-pages/render-page.js';
import { figure } from './report.js';

const run = promisify(execFile);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const PAGES = 30;

type Load = { rps: number; bytesPerRequest: number; p50: number; p99: number; errors: number; statusOther: number };
async function load(url: string, path: string, headers: Record<string, string>, concurrency = 1): Promise<Load> {
  const plan = JSON.stringify({ url, paths: [path], concurrency, seconds: SECONDS, headers });
  const { stdout } = await run(process.execPath, ['--import', 'tsx', 'bench/load.ts', plan], { maxBuffer: 1 << 20 });
  return JSON.parse(stdout.trim()) as Load;
}

const line = (name: string, l: Load) =>
  `${name.padEnd(22)} ${l.rps.toFixed(0).padStart(6)} req/s (${(l.bytesPerRequest / 1024).toFixed(1)} KB each), p50 ${l.p50.toFixed(2)} ms, p99 ${l.p99.toFixed(2)} ms, errors ${l.errors + l.statusOther}`;

const contents = Array.from({ length: PAGES }, (_, i) =>
  `# Page ${i}\n\n${`Lorem **ipsum** dolor sit amet, [a link](https://example.com/${i}) consectetur _adipiscing_ elit.\n\n`.repeat(1700)}`.slice(
    0,
    160_000,
  ),
);
// What every shell GET cost before pages were stored rendered: all of them, on the event loop
// (measured before the platform starts, as it blocks this process).
const before = performance.now();
for (const content of contents) renderPage('markdown', content);
const renderAll = performance.now() - before;

const platform = await startPlatform({ workers: true });
try {
  const person = await platform.person({ plan: 'solo' });
  const { project } = await deployStaticRoom(platform, person);
  const started = performance.now();
  for (const [i, content] of contents.entries()) {
    await person.client.call('addPage', { params: { projectId: project.id }, body: { title: `Page ${i}`, kind: 'markdown', content } });
  }
  console.log(
    `added ${PAGES} pages of 160,000 characters in ${((performance.now() - started) / 1000).toFixed(1)} s (rendered once each, in the renderer's thread)`,
  );
  const { url } = await person.client.call('createLink', { params: { projectId: project.id }, body: { viewerName: 'Bench' } });
  const jar: Jar = new Map();
  const path = new URL(url).pathname;
  const first = await hit(platform, path, { jar });
  const data = shellData(first.text);
  const cookie = [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
  const headers = { cookie, 'user-agent': desktopChrome };
  const pagePath = `/room/${data.sessionId}/pages/${data.pages[0].id}`;
  const page = await hit(platform, pagePath, { jar });
  console.log(
    `shell: ${(first.body.length / 1024).toFixed(1)} KB with ${data.pages.length} page tabs; one page: ${(page.body.length / 1024).toFixed(1)} KB`,
  );

  // Warm both, then measure the baseline and the shell one after the other.
  await load(platform.baseUrl, '/healthz', headers);
  await load(platform.baseUrl, path, headers);
  const base = await load(platform.baseUrl, '/healthz', headers);
  const shell = await load(platform.baseUrl, path, headers);
  const pageFull = await load(platform.baseUrl, pagePath, headers);
  const page304 = await load(platform.baseUrl, pagePath, { ...headers, 'if-none-match': String(page.headers.etag) });
  console.log(line('GET /healthz', base));
  console.log(line('shell (30 pages)', shell));
  console.log(line('one page, 200', pageFull));
  console.log(`${line('one page, 304', page304)} (304s count as "errors" here)`);
  console.log(
    `ratio shell / healthz (p50): ${(shell.p50 / base.p50).toFixed(2)}; shell p50 ${shell.p50.toFixed(2)} ms, p99 ${shell.p99.toFixed(2)} ms (target < 50 ms)`,
  );
  figure({ name: 'shell p50 (30 pages)', value: shell.p50, unit: 'ms', baseline: base.p50 });
  console.log(
    `before: rendering all ${PAGES} pages (each shell GET did this): ${renderAll.toFixed(0)} ms, ${(renderAll / shell.p50).toFixed(0)}× the shell's p50 now`,
  );
} finally {
  await platform.close();
}
