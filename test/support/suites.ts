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

/** A runner of its own, and a platform with its workers that asks that runner for copies. */
export function platformWithRunner(use: (platform: Platform, runner: TestRunner) => void, runnerEnv: Record<string, string> = {}) {
  let platform: Platform | undefined;
  let runner: TestRunner | undefined;
  beforeAll(async () => {
    runner = await startTestRunner(runnerEnv);
    platform = await startPlatform({ workers: true, env: { RUNNER_URL: runner.baseUrl } });
    // What the runner's data plane does not carry to a copy goes to this platform's room.
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
