import { createRequire, Module } from 'node:module';
import type Docker from 'dockerode';

// Parts of dockerode that a deploy never calls, loaded only if something calls them. Loading
// dockerode took 0.18-0.25 s of this tool's thread, on a container redeploy's critical path (the
// pull into the engine waits for it: docs/scale.md, "Issue 48"); 0.1 s of it was BuildKit's gRPC
// session (`dockerode/lib/session.js`, for `buildImage` with `version: '2'`, which the tool does
// not ask for) and 0.05 s ssh2 (`docker-modem/lib/ssh.js`, for a DOCKER_HOST of ssh://). Session 39
// added two more, about 0.03 s of the head start's thread before its pull: tar-fs (with its own
// tar-stream, for `buildImage` given a folder rather than a tar, which the tool never does) and
// docker-modem's HttpDuplex (with readable-stream, for a hijacked attach or exec, which the tool
// never asks). Each stand-in takes the module's place in the require cache and loads the real one
// at its first use, so all still work, later. dockerode is loaded through loadDockerode, which
// stands them in first; if dockerode's files move, nothing is stood in for and it loads as before.

const require = createRequire(import.meta.url);

/** The file `part` resolves to from `from`'s folder, when it is not loaded yet; null otherwise. */
function notLoaded(from: string, part: string): string | null {
  try {
    const file = createRequire(require.resolve(from)).resolve(part);
    return require.cache[file] ? null : file;
  } catch {
    return null;
  }
}

/** Puts `exports` in the require cache as the module `file`, until the real one is loaded. */
function standIn(file: string, exports: unknown): void {
  const module = new Module(file);
  module.filename = file;
  module.loaded = true;
  module.exports = exports;
  require.cache[file] = module;
}

/** The real module behind a stand-in, loaded once. */
function realOf<T>(file: string): () => T {
  let real: T | undefined;
  return () => {
    if (real === undefined) {
      delete require.cache[file];
      real = require(file) as T;
    }
    return real;
  };
}

type AnyFunction = (...args: unknown[]) => unknown;

/** `part` (a module exporting one function, or a class), loaded at its first call or `new`. */
function loadOnFirstCall(from: string, part: string): void {
  const file = notLoaded(from, part);
  if (!file) return;
  const real = realOf<AnyFunction>(file);
  standIn(file, function (this: unknown, ...args: unknown[]) {
    return new.target ? Reflect.construct(real() as unknown as new (...a: unknown[]) => object, args) : real().apply(this, args);
  });
}

/** `part` (a module exporting an object of functions, `names`), loaded at the first use of one. */
function loadOnFirstUse(from: string, part: string, names: string[]): void {
  const file = notLoaded(from, part);
  if (!file) return;
  const real = realOf<Record<string, unknown>>(file);
  standIn(
    file,
    Object.defineProperties({}, Object.fromEntries(names.map((name) => [name, { enumerable: true, get: () => real()[name] }]))),
  );
}

/** Stands in for the parts above, where dockerode is not loaded yet; nothing once it is. */
export function standInUnusedParts(): void {
  loadOnFirstCall('dockerode', './session.js');
  loadOnFirstCall('docker-modem', './ssh.js');
  loadOnFirstCall('docker-modem', './http_duplex.js');
  loadOnFirstUse('dockerode', 'tar-fs', ['pack', 'extract']);
}

/** dockerode, loaded (once) without the parts above. */
export function loadDockerode(): typeof Docker {
  standInUnusedParts();
  return require('dockerode') as typeof Docker;
}
