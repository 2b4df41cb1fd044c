import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// The room's browser scripts, written in TypeScript (shell/shell.ts, shell/voice.ts,
// content/frame-helper.ts) and built into services/room/dist by infra/local/room-scripts.mjs,
// which `npm start`, `npm test` and `npm run build` run first. Never committed: a missing file is
// a checkout nobody built, said so at start-up rather than as a 404 in a viewer's browser.

export type RoomScript = 'shell.js' | 'voice.js' | 'frame-helper.js';

export function roomScript(file: RoomScript): Buffer {
  const url = new URL(`./dist/${file}`, import.meta.url);
  try {
    return readFileSync(url);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    throw new Error(`${fileURLToPath(url)} is missing: build the room's scripts with \`npm run build:room\``, { cause: err });
  }
}
