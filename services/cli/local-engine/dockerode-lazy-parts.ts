import { createRequire, Module } from 'node:module';

// Two parts of dockerode that a deploy never calls, loaded only if something calls them. Loading
// dockerode took 0.18-0.25 s of this tool's thread, on a container redeploy's critical path (the
// pull into the engine waits for it: docs/scale.md, "Issue 48"); 0.1 s of it was BuildKit's gRPC
// session (`dockerode/lib/session.js`, for `buildImage` with `version: '2'`, which the tool does
// not ask for) and 0.05 s ssh2 (`docker-modem/lib/ssh.js`, for a DOCKER_HOST of ssh://). Each is
// one function its module requires at load: a stand-in takes its place in the require cache and
// loads the real one at the first call, so both still work, later. Imported before dockerode
// (local-docker.ts); if dockerode's files move, nothing is stood in for and it loads as before.

const require = createRequire(import.meta.url);

/** `part` (a module exporting one function), resolved from `from`'s folder, loaded at its first call. */
function loadOnFirstCall(from: string, part: string): void {
  let file: string;
  try {
    file = createRequire(require.resolve(from)).resolve(part);
  } catch {
    return;
  }
  if (require.cache[file]) return;
  let real: ((...args: unknown[]) => unknown) | undefined;
  const standIn = new Module(file);
  standIn.filename = file;
  standIn.loaded = true;
  standIn.exports = function (this: unknown, ...args: unknown[]) {
    if (!real) {
      delete require.cache[file];
      real = require(file) as (...args: unknown[]) => unknown;
    }
    return real.apply(this, args);
  };
  require.cache[file] = standIn;
}

loadOnFirstCall('dockerode', './session.js');
loadOnFirstCall('docker-modem', './ssh.js');
