// The Debian packages behind the local components. A fresh machine (and CI) lacks them; we
// install them there as root, and only for components that are not given by URL.
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { logger, pipeLines, which } from './lib.mjs';

const log = logger('apt');

/** The folder holding initdb and pg_ctl: PG_BIN, else the newest /usr/lib/postgresql/<15+>/bin, else PATH. */
export function postgresBinDir() {
  if (process.env.PG_BIN) return process.env.PG_BIN;
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root)
        .map(Number)
        .filter((v) => v >= 15)
        .sort((a, b) => b - a)
    : [];
  for (const version of versions) {
    const dir = path.join(root, String(version), 'bin');
    if (existsSync(path.join(dir, 'pg_ctl'))) return dir;
  }
  const pgCtl = which('pg_ctl');
  return pgCtl ? path.dirname(pgCtl) : null;
}

// component -> [is it installed?, Debian package]
const NEEDS = {
  postgres: [[() => postgresBinDir() !== null, 'postgresql']],
  redis: [[() => which('redis-server') !== null, 'redis-server']],
  podman: [
    [() => which('podman') !== null, 'podman'],
    [() => which('runc') !== null, 'runc'], // crun fails on these hosts; containers.conf picks runc
    [() => existsSync('/bin/busybox'), 'busybox-static'], // the demo base image's shell (base-image.mjs)
  ],
  registry: [
    [() => which('docker-registry') !== null, 'docker-registry'], // CNCF Distribution 2.8 (registry.mjs)
    [() => which('openssl') !== null, 'openssl'], // the certificate of the registry's token key
  ],

  // The data plane in front of copies (dataplane.mjs): HAProxy 2.6 checks copy tokens natively.
  dataplane: [[() => which('haproxy') !== null, 'haproxy']],
};

/** Installs the packages of `components` (names as in NEEDS) that are missing. */
export async function ensureSystemPackages(components = Object.keys(NEEDS)) {
  const missing = components.flatMap((name) => NEEDS[name] ?? []).filter(([present]) => !present());
  const packages = missing.map(([, pkg]) => pkg);
  if (!packages.length) return;
  const hint = `install them (apt-get install ${packages.join(' ')}) or give the components by URL (see infra/local/README.md)`;
  if (process.getuid?.() !== 0) throw new Error(`missing system packages ${packages.join(', ')}: ${hint}`);
  if (!which('apt-get')) throw new Error(`missing ${packages.join(', ')} and no apt-get here: ${hint}`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  await aptGet(['update'], env);
  await aptGet(['install', '-y', ...packages], env);
}

async function aptGet(args, env) {
  log(`running: apt-get ${args.join(' ')}`);
  const child = spawn('apt-get', ['-q', ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  pipeLines(child.stdout, 'apt');
  pipeLines(child.stderr, 'apt');
  const code = await new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', resolve);
  });
  if (code !== 0) throw new Error(`apt-get ${args[0]} failed with exit code ${code}`);
}
