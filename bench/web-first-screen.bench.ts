// The web app's first screen on this machine (issue 21: interactive in under a second): a
// signed-in builder with 12 projects opens `/`, in Debian's Chromium, from a cold cache (a new
// browser context) and a warm one (a reload). "Interactive" is when the projects are on the page
// with no skeleton left and the person's email in the header: the data came, the handlers run.
// Baseline in the same run: the same browser opening /healthz (one small JSON document, no
// script), so the ratio says what the app costs over the bare round trip.
//   npm run bench -- web-first-screen
import { launchChromium } from '../test/support/browser.js';
import { startPlatform } from '../test/support/platform.js';
import { webContext } from '../test/support/web-app.js';
import { figure } from './report.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 10);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const platform = await startPlatform({ workers: false });
const browser = await launchChromium();
try {
  const person = await platform.person({ plan: 'team', kind: 'web' });
  for (let i = 0; i < 12; i++)
    await person.client.call('createProject', {
      body: { name: `Bench project ${i + 1}`, slug: `bench-${crypto.randomUUID().slice(0, 8)}-${i}` },
    });

  const baseline: number[] = [];
  const cold: number[] = [];
  const warm: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const context = await webContext(browser, platform, person);
    const page = await context.newPage();
    await page.goto(`${platform.baseUrl}/healthz`);
    baseline.push(await page.evaluate(() => performance.getEntriesByType('navigation')[0].duration));

    for (const into of [cold, warm]) {
      if (into === cold) await page.goto(`${platform.baseUrl}/`);
      else await page.reload();
      // Polled every animation frame: the first frame where the list is there and settled.
      const at = await page.waitForFunction(
        () =>
          !document.querySelector('[aria-busy="true"]') &&
          document.querySelector('#who')?.textContent &&
          document.querySelector('main#content h1')
            ? performance.now()
            : 0,
        undefined,
        { polling: 'raf', timeout: 10_000 },
      );
      into.push((await at.jsonValue()) as number);
    }
    await context.close();
  }
  const b = median(baseline);
  console.log(`/healthz (baseline):         median ${b.toFixed(0)} ms over ${RUNS} runs`);
  console.log(
    `first screen, cold cache:    median ${median(cold).toFixed(0)} ms (max ${Math.max(...cold).toFixed(0)}); ratio to baseline ${(median(cold) / b).toFixed(1)}x; target < 1000 ms`,
  );
  console.log(
    `first screen, warm (reload): median ${median(warm).toFixed(0)} ms (max ${Math.max(...warm).toFixed(0)}); ratio to baseline ${(median(warm) / b).toFixed(1)}x`,
  );
  figure({ name: 'first screen, cold cache', value: median(cold), unit: 'ms', baseline: b });
  figure({ name: 'first screen, warm', value: median(warm), unit: 'ms', baseline: b });
} finally {
  await browser.close();
  await platform.close();
}
