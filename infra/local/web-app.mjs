// The builder's web app (services/web), built by `vite build` into services/web/dist, which the
// api serves. `npm start` and `npm test` call this first; it builds only when a source changed
// since the last build (a hash of the sources, kept beside the output), so a second start costs
// a few milliseconds.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot, seconds, viteBuild } from './lib.mjs';
import { hashOfSources } from './sources-hash.mjs';

const webRoot = path.join(repoRoot, 'services/web');
const outDir = path.join(webRoot, 'dist');
const stampFile = path.join(outDir, '.sources-hash');
// What the bundle is made of: the app, the contract it imports, the toolchain's versions.
const SOURCES = [
  'services/web/index.html',
  'services/web/vite.config.ts',
  'services/web/public',
  'services/web/src',
  'services/contract',
  'package-lock.json',
];

export function sourcesHash() {
  return hashOfSources(SOURCES, (file) => /\.test\.tsx?$/.test(file));
}

export async function ensureWebApp(log) {
  const began = Date.now();
  const hash = sourcesHash();
  if (existsSync(stampFile) && readFileSync(stampFile, 'utf8') === hash && existsSync(path.join(outDir, 'index.html'))) return;
  log('building the web app (services/web)');
  await viteBuild({ configFile: path.join(webRoot, 'vite.config.ts'), logLevel: 'warn' });
  writeFileSync(stampFile, hash);
  log(`web app built in ${seconds(Date.now() - began)}`);
}

// `npm run build:web`: the same, by hand (after changing services/web while tests run).
if (process.argv[1] && path.resolve(process.argv[1]) === path.join(repoRoot, 'infra/local/web-app.mjs')) {
  await ensureWebApp((line) => process.stdout.write(`${line}\n`));
}
