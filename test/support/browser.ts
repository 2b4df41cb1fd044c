import { chromium, type Browser } from 'playwright-core';

// Debian's Chromium, headless, driven by playwright-core; never a downloaded browser. The flags
// keep it off the network it cannot reach here (background updates, sync, field trials).
// playwright-core gives every launch a fresh temporary profile of its own. It speaks as a desktop
// Chrome, so that what the tests see is what a viewer's browser gets (a headless agent gets the
// room too: services/room/viewer/link-preview-bots.ts, and viewer-voice.int.test.ts for it).
export const desktopChrome = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36';

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage',
      `--user-agent=${desktopChrome}`,
    ],
  });
}
