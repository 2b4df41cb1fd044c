// The api's /healthz while a 200-page listing check runs (issue 28, H3: target p99 < 100 ms),
// against /healthz idle, measured in the same run. The check is a rehearsal of a static build of
// 200 HTML pages of 64 KB each, its stored findings cleared before each so the pages are read and
// parsed every time (in the page checks' worker thread), one rehearsal after another.
// Needs the test services (`node infra/local/test.mjs --services`).
//   npx tsx bench/listing-checks.bench.ts
import { startPlatform } from '../test/support/platform.js';
import { deployStaticRoom } from '../test/support/room.js';
import { figure } from './report.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const PAGES = 200;
const PAGE_KB = 64;

const platform = await startPlatform({ workers: true });
const owner = await platform.person({ plan: 'solo' });
const para = '<p>Every deal in one place, followed up from one board by the whole team.</p>\n';
const body = para.repeat(Math.ceil((PAGE_KB * 1024) / para.length));
const files: Record<string, string> = { 'index.html': '<!doctype html><title>Home</title><h1>Home</h1>' };
for (let i = 1; i < PAGES; i++) files[`docs/p${i}.html`] = `<!doctype html><title>Docs ${i}</title>${body}`;
const { project, build } = await deployStaticRoom(platform, owner, {
  files,
  manifest: { kind: 'static', name: 'Docs', output: 'dist', apps: [{ id: 'web', name: 'Website', path: '/', device: 'laptop' }] },
});
await owner.client.call('saveCard', {
  params: { projectId: project.id },
  body: { title: 'Acme CRM', line: 'Follow up every deal from one board.' },
});

/** /healthz one after another for `seconds`: each answer's milliseconds. */
async function probe(seconds: number) {
  const times: number[] = [];
  const end = performance.now() + seconds * 1000;
  while (performance.now() < end) {
    const t = performance.now();
    const res = await fetch(`${platform.baseUrl}/healthz`);
    await res.arrayBuffer();
    times.push(performance.now() - t);
  }
  return times;
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};

const idle = await probe(SECONDS);
let checks = 0;
let busy = true;
const checking = (async () => {
  while (busy) {
    await platform.deps.sql`delete from build_page_checks where build_id = ${build.id}`;
    const res = await platform.fetch(`/api/projects/${project.id}/card/listing`, { token: owner.token });
    if (res.status !== 200) throw new Error(`rehearsal answered ${res.status}`);
    checks++;
  }
})();
const during = await probe(SECONDS);
busy = false;
await checking;
await platform.close();

const idleP99 = pct(idle, 99);
const duringP99 = pct(during, 99);
console.log(`healthz idle:   n=${idle.length} p50=${pct(idle, 50).toFixed(1)} ms p99=${idleP99.toFixed(1)} ms`);
console.log(
  `healthz during: n=${during.length} p50=${pct(during, 50).toFixed(1)} ms p99=${duringP99.toFixed(1)} ms max=${Math.max(...during).toFixed(1)} ms (${checks} full ${PAGES}-page checks ran)`,
);
console.log(`p99 during / idle: ${(duringP99 / idleP99).toFixed(1)}x; target p99 < 100 ms: ${duringP99 < 100 ? 'met' : 'NOT met'}`);
figure({ name: 'healthz p99 during listing checks', value: duringP99, unit: 'ms', baseline: idleP99 });
