import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { testEnv } from '../services.js';

const run = promisify(execFile);
export const demoDir = fileURLToPath(new URL('./demo', import.meta.url));

/**
 * The demo's bundle as the CLI makes one (podman build FROM the offline base image, podman save,
 * gzip), kept in the temp folder by the hash of its sources so test files and benchmarks of one
 * run build it once.
 */
export async function demoBundle(): Promise<Buffer> {
  const sources = await Promise.all(['Dockerfile', 'server.js'].map((f) => readFile(join(demoDir, f))));
  const hash = createHash('sha256').update(Buffer.concat(sources)).digest('hex').slice(0, 16);
  const cached = join(tmpdir(), `runner-demo-${hash}.tgz`);
  if (existsSync(cached)) return readFile(cached);
  const env = { ...process.env, CONTAINERS_CONF: testEnv().CONTAINERS_CONF };
  const tag = `localhost/runner-demo-build:${hash}-${process.pid}`;
  await run('podman', ['build', '-q', '-t', tag, demoDir], { env });
  const dir = await mkdtemp(join(tmpdir(), 'runner-demo-'));
  try {
    const file = join(dir, 'image.tar');
    await run('podman', ['save', '--format', 'docker-archive', '-o', file, tag], { env });
    const gz = gzipSync(await readFile(file), { level: 1 });
    await writeFile(`${cached}.${process.pid}`, gz);
    await rename(`${cached}.${process.pid}`, cached);
    return gz;
  } finally {
    await rm(dir, { recursive: true, force: true });
    await run('podman', ['rmi', '-f', tag], { env }).catch(() => {});
  }
}
