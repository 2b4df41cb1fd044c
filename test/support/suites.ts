import { afterAll, beforeAll } from 'vitest';
import type { Browser } from 'playwright-core';
import { startTestRunner, type TestRunner } from './runner/test-runner.js';
import { launchChromium } from './browser.js';
import { startPlatform, type Platform } from './platform.js';

// The set-ups a whole test file shares, started once before its tests and stopped after them.
// Each hands what it started to `use`, which keeps it in the file's own variables.

/** A platform with its workers (`env` over the test defaults), and Debian's Chromium. */
export function platformAndChromium(use: (platform: Platform, browser: Browser) => void, env: Record<string, string> = {}) {
  let platform: Platform | undefined;
  let browser: Browser | undefined;
  beforeAll(async () => {
    platform = await startPlatform({ workers: true, env });
    browser = await launchChromium();
    use(platform, browser);
  });
  afterAll(async () => {
    await browser?.close();
    await platform?.close();
  });
}

/**
 * A runner of its own with its data plane, and a platform with its workers that asks that runner
 * for copies and serves its copy origins through that data plane.
 */
export function platformWithRunner(use: (platform: Platform, runner: TestRunner) => void, runnerEnv: Record<string, string> = {}) {
  let platform: Platform | undefined;
  let runner: TestRunner | undefined;
  beforeAll(async () => {
    runner = await startTestRunner(runnerEnv);
    // Viewers meet copy origins at the runner's data plane, as under `npm start`: it takes what
    // carries a copy token straight to the copy, and hands the rest to this platform's room.
    const contentOrigin: Record<string, string> = runner.dataplane
      ? { CONTENT_ORIGIN: `http://{slug}.rooms.localhost:${runner.dataplane.port}` }
      : {};
    platform = await startPlatform({ workers: true, env: { RUNNER_URL: runner.baseUrl, ...contentOrigin } });
    await runner.dataplane?.pointRoomAt(Number(new URL(platform.baseUrl).port));
    use(platform, runner);
  });
  afterAll(async () => {
    await platform?.close();
    await runner?.close();
  });
}

/** A runner, a platform asking it for copies, and Debian's Chromium: container rooms in a browser. */
export function platformRunnerAndChromium(use: (platform: Platform, runner: TestRunner, browser: Browser) => void) {
  let browser: Browser | undefined;
  let started: [Platform, TestRunner] | undefined;
  platformWithRunner((platform, runner) => (started = [platform, runner]));
  beforeAll(async () => {
    browser = await launchChromium();
    use(started![0], started![1], browser);
  });
  afterAll(async () => {
    await browser?.close();
  });
}
