// Builds, offline, the base image demo Dockerfiles in tests start FROM: this machine's `node`
// binary and the shared libraries it links, in an otherwise empty root. There is no registry here.
//
//   node infra/local/base-image.mjs [--force]   (uses DOCKER_HOST, else a temporary podman service)
import { spawn } from 'node:child_process';
import { chmodSync, chownSync, copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { logger, run, seconds } from './lib.mjs';
import { engineRequest } from './podman.mjs';

export const BASE_IMAGE = 'localhost/demo-node:base';
const APP_UID = 1000; // the non-root user `app` a runner should start demo containers as

const log = logger('image');

/** Imports BASE_IMAGE into the engine at `dockerHost` unless it is there already. */
export async function ensureBaseImage(dockerHost, { force = false } = {}) {
  const image = encodeURIComponent(BASE_IMAGE);
  const existing = await engineRequest(dockerHost, 'GET', `/images/${image}/json`);
  if (existing.status === 200 && !force) return 'exists';
  if (existing.status === 200) await engineRequest(dockerHost, 'DELETE', `/images/${image}?force=true`);

  const started = Date.now();
  const root = mkdtempSync(path.join(os.tmpdir(), 'demo-node-root-'));
  try {
    await fillRoot(root);
    // The tag goes inside `repo`: podman 4.3 ignores the separate `tag` parameter.
    const query = new URLSearchParams({ fromSrc: '-', repo: BASE_IMAGE });
    for (const change of [
      'WORKDIR /app',
      'ENV PATH=/usr/local/bin:/usr/bin:/bin',
      `LABEL demo-node.node-version=${process.version}`,
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
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  log(`built ${BASE_IMAGE} (node ${process.version}) in ${seconds(Date.now() - started)}`);
  return 'built';
}

/** node, the libraries `ldd` names (and the loader) at their own paths, a passwd with `app`, /tmp. */
async function fillRoot(root) {
  const copy = (from, to = from) => {
    mkdirSync(path.join(root, path.dirname(to)), { recursive: true });
    copyFileSync(from, path.join(root, to)); // copyFileSync follows symlinks: the file, not the link
  };
  copy(process.execPath, '/usr/local/bin/node');
  const { stdout } = await run('ldd', [process.execPath]);
  // "libc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x...)" and "/lib64/ld-linux-x86-64.so.2 (0x...)"
  for (const line of stdout.split('\n')) {
    const lib = line.match(/=>\s*(\/\S+)/)?.[1] ?? line.match(/^\s*(\/\S+)/)?.[1];
    if (lib) copy(lib);
  }
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
