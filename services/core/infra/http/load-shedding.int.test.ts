import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlatform, type Platform } from '../../../../test/support/platform.js';
import { hit } from '../../../../test/support/room.js';
import { waitFor } from '../../../../test/support/wait-for.js';
import { buildRoomApp } from '../../../room/app.js';

// Load shedding over real HTTP: a process whose event loop is held up, or whose memory is past
// its limit, answers 503 `unavailable` with Retry-After at once (the api, the room's routes
// alongside it, the content origins, the room on its own), and its /readyz says so; under
// normal load everything answers as before. startPlatform turns shedding off; each test here
// turns on what it shows.

const unavailableBody = { error: 'unavailable', reason: 'unavailable', detail: 'the server is busy; try again in a moment' };
// A static content origin's host: the content app answers it (404 without a viewer's cookie).
const contentHost = (p: Platform) => `demo--p0123abcd.rooms.localhost:${new URL(p.baseUrl).port}`;

/** Holds this process's event loop busy in slices of `sliceMs`, with only a timer turn between them, until stopped. */
function holdLoopBusy(sliceMs: number) {
  let on = true;
  const slice = () => {
    if (!on) return;
    const end = Date.now() + sliceMs;
    while (Date.now() < end) {
      /* busy: as a synchronous decode or render would be */
    }
    setTimeout(slice, 0);
  };
  setTimeout(slice, 0);
  return () => {
    on = false;
  };
}

describe('under normal load', () => {
  let platform: Platform;
  beforeAll(async () => {
    platform = await startPlatform({ env: { LOAD_MAX_EVENT_LOOP_DELAY_MS: '200' } });
  });
  afterAll(async () => platform?.close());

  it('answers every request as usual, and /readyz reports headroom', async () => {
    // Building the app holds the loop too: the sample that covers the start may shed (a fresh
    // process is not ready before its probe says so anyway). Normal load is what follows it.
    // So wait for answers spanning a sample (one a second): four 200s in a row, half a second apart.
    let inRow = 0;
    await waitFor(
      'the samples after the start',
      async () => {
        inRow = (await platform.fetch('/healthz')).status === 200 ? inRow + 1 : 0;
        return inRow >= 4;
      },
      60_000,
      500,
    );
    const answers = await Promise.all(Array.from({ length: 20 }, () => platform.fetch('/healthz')));
    for (const a of answers) expect(a).toMatchObject({ status: 200, body: { ok: true, service: 'demo-rooms-api' } });
    expect((await platform.fetch('/readyz')).body).toEqual({ ok: true, checks: { postgres: true, redis: true, s3: true, headroom: true } });
  });
});

describe('with the event loop held busy', () => {
  let platform: Platform;
  beforeAll(async () => {
    platform = await startPlatform({ env: { LOAD_MAX_EVENT_LOOP_DELAY_MS: '100' } });
  });
  afterAll(async () => platform?.close());

  it('sheds with 503 unavailable and Retry-After, says so at /readyz, and answers again once the loop is free', async () => {
    // The content app is made on its first request; let it answer one before the loop is held.
    expect((await hit(platform, '/', { host: contentHost(platform) })).status).toBe(404);
    const release = holdLoopBusy(300);
    try {
      const shed = await waitFor(
        'a shed request',
        async () => {
          const a = await platform.fetch('/healthz');
          return a.status === 503 && a;
        },
        30_000,
        0,
      );
      expect(shed.body).toEqual(unavailableBody);
      expect(Number(shed.headers.get('retry-after'))).toBeGreaterThan(0);
      // The room's routes alongside the api, an api route, and a content origin: all the same.
      expect((await platform.fetch('/r/anything')).status).toBe(503);
      const signIn = await platform.fetch('/api/auth/device', { method: 'POST' });
      expect(signIn).toMatchObject({ status: 503, body: unavailableBody });
      const content = await hit(platform, '/', { host: contentHost(platform) });
      expect(content.status).toBe(503);
      expect(content.json).toEqual(unavailableBody);
      expect(Number(content.headers['retry-after'])).toBeGreaterThan(0);
      // /readyz is not shed: it answers its own 503, naming the check that failed.
      const ready = await platform.fetch('/readyz');
      expect(ready.status).toBe(503);
      expect(ready.body).toMatchObject({ ok: false, checks: { headroom: false } });
    } finally {
      release();
    }
    await waitFor('the api answering again', async () => (await platform.fetch('/healthz')).status === 200);
    await waitFor('ready again', async () => (await platform.fetch('/readyz')).status === 200);
    expect((await platform.fetch('/readyz')).body).toMatchObject({ ok: true, checks: { headroom: true } });
  });
});

describe('with memory past its limit', () => {
  let platform: Platform;
  let room: Awaited<ReturnType<typeof buildRoomApp>>;
  let roomUrl: string;
  beforeAll(async () => {
    // 1 MiB of heap: every process is past it, so shedding starts with the first sample.
    platform = await startPlatform({ env: { LOAD_MAX_HEAP_MB: '1' } });
    room = await buildRoomApp({ ...platform.deps });
    await room.listen({ port: 0, host: '127.0.0.1' });
    roomUrl = `http://127.0.0.1:${(room.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await room?.close();
    await platform?.close();
  });

  it('the api sheds every request but /readyz, which says there is no headroom', async () => {
    const shed = await waitFor('a shed request', async () => {
      const a = await platform.fetch('/api/openapi.json');
      return a.status === 503 && a;
    });
    expect(shed.body).toEqual(unavailableBody);
    expect(shed.headers.get('retry-after')).toBe('2');
    expect(shed.headers.get('cache-control')).toBe('no-store');
    const ready = await platform.fetch('/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body).toEqual({ ok: false, checks: { postgres: true, redis: true, s3: true, headroom: false } });
  });

  it('the room on its own does the same', async () => {
    const get = async (path: string) => {
      const res = await fetch(roomUrl + path);
      return { status: res.status, retryAfter: res.headers.get('retry-after'), body: await res.json() };
    };
    const shed = await waitFor('the room shedding', async () => {
      const a = await get('/healthz');
      return a.status === 503 && a;
    });
    expect(shed).toEqual({ status: 503, retryAfter: '2', body: unavailableBody });
    expect(await get('/readyz')).toEqual({
      status: 503,
      retryAfter: null,
      body: { ok: false, checks: { postgres: true, headroom: false } },
    });
  });
});
