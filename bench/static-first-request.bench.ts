// The first request of a new static build through the content origin, against a warm request of
// the same file in the same run. A build of many files (3,000 by default: three pages of the
// store's listing) is deployed and made live, a viewer enters, and the first `GET /` is timed; the
// listing of the whole prefix (what that first request used to wait for: 36.5 s in the trial,
// under load) is timed beside it. Target: the first request in < 100 ms.
//   npm run bench -- static-first-request      (BENCH_FILES, BENCH_RUNS to change the size and count)
import { randomBytes } from 'node:crypto';
import { startPlatform } from '../test/support/platform.js';
import { deployStaticRoom, enterRoom, hit } from '../test/support/room.js';
import { buildFilesPrefix } from '../services/data/builds.sql.js';
import { figure, step } from './report.js';
import { median, ms } from './runner-kit.js';

const FILES = Number(process.env.BENCH_FILES ?? 3000);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);

const files: Record<string, string | Buffer> = {
  'index.html': `<!doctype html><title>Bench</title>${'<p>Lorem ipsum dolor sit amet.</p>'.repeat(150)}`,
  ...Object.fromEntries(
    Array.from({ length: FILES - 1 }, (_, i) => [`assets/part-${i}.js`, `export const part${i} = "${randomBytes(24).toString('hex')}";`]),
  ),
};
const manifest = { kind: 'static', name: 'First request', output: 'dist', apps: [{ id: 'web', name: 'Web', path: '/', device: 'none' }] };

const platform = await step('starting the platform', () => startPlatform({ workers: true }));
try {
  const person = await platform.person({ plan: 'pro' });
  const first: number[] = [];
  const warm: number[] = [];
  const listing: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const { project, build } = await step(`deploying a static build of ${FILES} files`, () =>
      deployStaticRoom(platform, person, { files, manifest }),
    );
    const { url } = await person.client.call('createLink', { params: { projectId: project.id }, body: { viewerName: 'Bench' } });
    const viewer = await step('entering the room', () => enterRoom(platform, url));
    const get = async () => {
      const t0 = performance.now();
      const page = await hit(platform, '/', { host: viewer.host, jar: viewer.contentJar, headers: { 'accept-encoding': 'gzip, br' } });
      if (page.status !== 200) throw new Error(`the content origin answered ${page.status} for /`);
      return performance.now() - t0;
    };
    first.push(await step('the first request of the build', get));
    const times: number[] = [];
    for (let i = 0; i < 20; i++) times.push(await get());
    warm.push(median(times));
    const t0 = performance.now();
    const listed = await platform.deps.storage.list(buildFilesPrefix(build.id));
    listing.push(performance.now() - t0);
    if (listed.length !== FILES) throw new Error(`the build holds ${listed.length} files, not ${FILES}`);
  }
  const f = median(first);
  const w = median(warm);
  const l = median(listing);
  console.log(`builds: ${RUNS}, each of ${FILES} files; medians`);
  console.log(`first request of a new build (GET / on its content origin): ${ms(f)} (all: ${first.map(ms).join(', ')}) (target < 100 ms)`);
  console.log(`warm request of the same file:                              ${ms(w)}`);
  console.log(`listing of the build's whole prefix (what the first request waited for before): ${ms(l)}`);
  console.log(`ratio first / warm: ${(f / w).toFixed(2)}x`);
  figure({ name: 'first request of a new static build', value: f, unit: 'ms', baseline: w });
  figure({ name: 'listing of the build prefix', value: l, unit: 'ms', baseline: w });
} finally {
  await platform.close();
}
