import { existsSync, readFileSync } from 'node:fs';
import { registerHooks } from 'node:module';
import { fileURLToPath } from 'node:url';

// The head start's modules (deploy-steps/head-start.ts) load through Node's own type stripping,
// before tsx's hooks are registered (pitch.mjs): tsx transforms each module in a thread of its own,
// and through it the head start's load took 0.16-0.2 s and about 0.27 s of CPU, against 0.11 s and
// 0.16 s stripped by Node, on the way to the rehearsal copy's start (docs/decisions/cli-rehearsal.md).
// Node resolves two things differently from tsx, and the hook below resolves them as tsx does:
// a `.js` specifier whose file is the `.ts` beside it, and `@demo-rooms/contract`, which tsx takes
// from tsconfig.json's paths (this checkout's contract, whatever node_modules holds). The rest of
// the tool, loaded through tsx once the hook is gone, then finds those modules loaded: the same
// files, by the same URLs.

const contract = new URL('../../contract/', import.meta.url);

/** `@demo-rooms/contract` and each of its subpaths, to the source its package.json exports name as `types` (as tsconfig.json's paths do). */
const contractSources = new Map(
  Object.entries(JSON.parse(readFileSync(new URL('package.json', contract), 'utf8')).exports).map(([subpath, entry]) => [
    `@demo-rooms/contract${subpath.slice(1)}`,
    new URL(entry.types, contract).href,
  ]),
);

/** Registers the resolution; its `deregister()` ends it. */
export function typeScriptResolution() {
  return registerHooks({
    resolve(specifier, context, nextResolve) {
      const source = contractSources.get(specifier);
      if (source) return nextResolve(source, context);
      try {
        return nextResolve(specifier, context);
      } catch (err) {
        const twin = err?.code === 'ERR_MODULE_NOT_FOUND' && /\.js$/.test(err.url ?? '') ? `${err.url.slice(0, -3)}.ts` : null;
        if (!twin || !existsSync(fileURLToPath(twin))) throw err;
        return nextResolve(twin, context);
      }
    },
  });
}
