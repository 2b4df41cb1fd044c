// The compiled contract as a package, for code that runs from dist/ with plain node (the platform
// image, infra/docker/process.mjs). tsc emits services/contract to dist/services/contract; this
// puts the contract's package.json beside those .js files (each export's `default` condition names
// one) and links dist/node_modules/@demo-rooms/contract to it, as npm links the workspace into
// node_modules. So `import '@demo-rooms/contract'` in dist/ finds compiled JavaScript, whatever
// node_modules links to (in the image, no services/ at all). `npm run build` runs it after tsc,
// and it fails the build when an export's compiled file is missing.
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from './lib.mjs';

const compiled = path.join(repoRoot, 'dist/services/contract');
const manifest = JSON.parse(readFileSync(path.join(repoRoot, 'services/contract/package.json'), 'utf8'));

const missing = Object.entries(manifest.exports)
  .map(([subpath, conditions]) => [subpath, conditions.default])
  .filter(([, file]) => !existsSync(path.join(compiled, file)));
if (missing.length) {
  console.error(`contract-package: tsc did not emit ${missing.map(([s, f]) => `${f} (${s})`).join(', ')} in dist/services/contract`);
  process.exit(1);
}

copyFileSync(path.join(repoRoot, 'services/contract/package.json'), path.join(compiled, 'package.json'));
const link = path.join(repoRoot, 'dist/node_modules/@demo-rooms/contract');
mkdirSync(path.dirname(link), { recursive: true });
rmSync(link, { force: true, recursive: true });
symlinkSync(path.relative(path.dirname(link), compiled), link, 'dir');
console.log('contract-package: dist/node_modules/@demo-rooms/contract -> dist/services/contract');
