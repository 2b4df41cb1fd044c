// The room's browser scripts (services/room/shell/shell.ts and voice.ts, the content origin's
// services/room/content/frame-helper.ts), each built by Vite into one self-contained classic
// script (IIFE) under services/room/dist, which the room serves (shell-assets.ts, content-app.ts).
// One build per script: a page loads each with a plain <script src>, and the frame helper goes
// into build pages where nothing may be shared with the shell's. Like web-app.mjs: `npm start`,
// `npm test` and `npm run build` call this first, and it builds only when a source changed since
// the last build (a hash of the sources, kept beside the output).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot, seconds, viteBuild } from './lib.mjs';
import { hashOfSources } from './sources-hash.mjs';

const outDir = path.join(repoRoot, 'services/room/dist');
const stampFile = path.join(outDir, '.sources-hash');
/** Each script: its source, and the file it becomes in services/room/dist. */
export const ROOM_SCRIPTS = [
  { entry: 'services/room/shell/shell.ts', file: 'shell.js' },
  { entry: 'services/room/shell/voice.ts', file: 'voice.js' },
  { entry: 'services/room/content/frame-helper.ts', file: 'frame-helper.js' },
];
// What the scripts are made of (types from the contract leave nothing in them), this file, and
// the toolchain's versions.
const SOURCES = [
  'services/room/shell',
  'services/room/content/frame-helper.ts',
  'services/room/content/frame-helper',
  'services/room/content/frame-messages.ts',
  'infra/local/room-scripts.mjs',
  'package-lock.json',
];

function sourcesHash() {
  return hashOfSources(SOURCES);
}

const built = () => ROOM_SCRIPTS.every(({ file }) => existsSync(path.join(outDir, file)));

export async function ensureRoomScripts(log) {
  const began = Date.now();
  const hash = sourcesHash();
  if (existsSync(stampFile) && readFileSync(stampFile, 'utf8') === hash && built()) return;
  log('building the room scripts (services/room/dist)');
  for (const [i, { entry, file }] of ROOM_SCRIPTS.entries()) {
    await viteBuild({
      configFile: false,
      root: repoRoot,
      logLevel: 'warn',
      build: {
        outDir,
        emptyOutDir: i === 0,
        target: 'es2022',
        minify: true,
        copyPublicDir: false,
        // Not Vite's library mode, which wants a global name for an IIFE: nothing is exported,
        // and a script leaves no global of its own behind.
        rollupOptions: { input: path.join(repoRoot, entry), output: { format: 'iife', entryFileNames: file } },
      },
    });
  }
  writeFileSync(stampFile, hash);
  log(`room scripts built in ${seconds(Date.now() - began)}`);
}

// `npm run build:room`: the same, by hand (after changing a script while tests run).
if (process.argv[1] && path.resolve(process.argv[1]) === path.join(repoRoot, 'infra/local/room-scripts.mjs')) {
  await ensureRoomScripts((line) => process.stdout.write(`${line}\n`));
}
