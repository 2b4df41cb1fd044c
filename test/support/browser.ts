import { chromium, type Browser } from 'playwright-core';

// Debian's Chromium, headless, driven by playwright-core; never a downloaded browser. The flags
// keep it off the network it cannot reach here (background updates, sync, field trials).
// playwright-core gives every launch a fresh temporary profile of its own.
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage',
    ],
  });
}
