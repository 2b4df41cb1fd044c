// Image bombs against the room (issue 28, "Done when": four image-bomb comments at once raise the
// room process's RSS by less than 64 MB and all answer within a second). A viewer posts four
// comments at once, each with a 2.6 KB lossless WebP declaring 8192×8192 pixels (security-3 H1:
// 522 MB and 2.5 s each before), then four with a 706-byte 4096² one. The baseline, in the same
// run: four plain comments at once, each with a good 1440×900 PNG screenshot (decoded and stored),
// so the figures read as ratios against what an ordinary comment costs on this machine today.
// The room runs in this process, as the api does in development; RSS is this process's.
// Needs the test services (`node infra/local/test.mjs --services`); `npm run bench -- image-bombs`.
import sharp from 'sharp';
import { webpBomb } from '../test/fixtures/images.js';
import { startPlatform } from '../test/support/platform.js';
import { deployStaticRoom, enterRoom, hit } from '../test/support/room.js';
import { figure } from './report.js';

const MB = 1024 * 1024;
// Made before the platform starts: making one blocks this process for seconds.
const bombs = { big: webpBomb(8192), small: webpBomb(4096) };
const platform = await startPlatform({ workers: true, env: { COMMENTS_PER_SESSION_HOUR: '100' } });
try {
  const person = await platform.person({ plan: 'solo' });
  const { project } = await deployStaticRoom(platform, person);
  const { url } = await person.client.call('createLink', { params: { projectId: project.id }, body: { viewerName: 'Bench viewer' } });
  const room = await enterRoom(platform, url);
  const comment = (type: string, bytes: Buffer) => ({
    appId: 'web',
    screen: '/',
    body: 'Look at this',
    position: { x: 0.5, y: 0.5 },
    area: null,
    device: 'laptop',
    screenshot: { type, data: bytes.toString('base64') },
    screenshotNote: null,
  });

  /** Four comments at once: the slowest answer, the statuses, and how much this process grew. */
  async function fourAtOnce(body: object) {
    const before = process.memoryUsage().rss;
    let peak = before;
    const watch = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 5);
    const t0 = performance.now();
    const answers = await Promise.all(
      [1, 2, 3, 4].map(async () => {
        const a = await hit(platform, `${room.base}/comments`, { method: 'POST', jar: room.jar, json: body });
        return { status: a.status, ms: performance.now() - t0 };
      }),
    );
    clearInterval(watch);
    peak = Math.max(peak, process.memoryUsage().rss);
    return { slowest: Math.max(...answers.map((a) => a.ms)), statuses: answers.map((a) => a.status).join(','), grew: (peak - before) / MB };
  }

  // A screenshot as the frame's agent sends one: a 1440×900 viewport of text-like detail, as PNG.
  const detail = Buffer.alloc(1440 * 900 * 3);
  for (let i = 0; i < detail.length; i++) detail[i] = (i * 7919) % 251 < 40 ? 30 : 245;
  const good = comment(
    'image/png',
    await sharp(detail, { raw: { width: 1440, height: 900, channels: 3 } })
      .png()
      .toBuffer(),
  );
  const bomb8k = comment('image/webp', bombs.big);
  const bomb4k = comment('image/webp', bombs.small);

  await fourAtOnce(good); // warm-up: first routes, first sharp calls
  const baseline = await fourAtOnce(good);
  const big = await fourAtOnce(bomb8k);
  const small = await fourAtOnce(bomb4k);

  const row = (name: string, r: typeof baseline) => {
    console.log(
      `${name.padEnd(34)} slowest ${r.slowest.toFixed(0).padStart(5)} ms (${(r.slowest / baseline.slowest).toFixed(2)}× baseline)  RSS +${r.grew.toFixed(1).padStart(5)} MB  [${r.statuses}]`,
    );
    figure({ name: `${name}: slowest answer`, value: r.slowest, unit: 'ms', baseline: baseline.slowest });
    figure({ name: `${name}: RSS growth`, value: r.grew, unit: 'MB' });
  };
  row('baseline: 4 good 1440×900 PNGs', baseline);
  row('4 bombs of 8192² (lossless WebP)', big);
  row('4 bombs of 4096² (lossless WebP)', small);
  const worst = [big, small];
  const ok = worst.every((r) => r.grew < 64 && r.slowest < 1000 && !/200/.test(r.statuses));
  console.log(`target: each bomb batch under 64 MB of RSS and answered within 1 s, none stored: ${ok ? 'met' : 'NOT met'}`);
} finally {
  await platform.close();
}
