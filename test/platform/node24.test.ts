import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { checkDockerfile } from '@demo-rooms/contract/manifest';
import { PITCH_BIN } from '../cli/support/pitch.js';
import { testEnv } from '../support/services.js';

// The platform, its tests, the CLI and the demo base image all run on Node 24 LTS, on a machine
// whose own node is older: the project brings its own (infra/local/node24.mjs).

const run = promisify(execFile);
const BASE_IMAGE = 'localhost/demo-node:24';
const podman = (args: string[]) =>
  run('podman', args, { env: { ...process.env, CONTAINERS_CONF: testEnv().CONTAINERS_CONF }, maxBuffer: 1 << 24 });

/** A node on PATH older than 24, as the machine's own, or null. */
async function olderNode(): Promise<string | null> {
  for (const candidate of ['/usr/bin/node', '/usr/local/bin/node', '/bin/node']) {
    const version = await run(candidate, ['--version']).then(
      ({ stdout }) => stdout.trim(),
      () => null,
    );
    if (version && Number(version.slice(1).split('.')[0]) < 24) return candidate;
  }
  return null;
}

describe('Node 24', () => {
  it('runs the tests', () => {
    expect(process.versions.node.split('.')[0]).toBe('24');
  });

  it('runs the pitch tool when an older node starts it', async (ctx) => {
    const older = await olderNode();
    if (!older) return ctx.skip();
    // NODE_OPTIONS would make the pinned node print the version; ask it through the tool itself.
    const { stdout } = await run(older, [PITCH_BIN, '--version']);
    expect(stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    const probe = await run(older, [
      '-e',
      `
      const { spawnSync } = require('node:child_process');
      const r = spawnSync(process.execPath, [${JSON.stringify(PITCH_BIN)}, '--version'], { env: { ...process.env, NODE_OPTIONS: '--require ${join(import.meta.dirname, 'print-node-version.cjs')}' } });
      process.stdout.write(String(r.stderr));`,
    ]);
    expect(probe.stdout).toContain('pitch-ran-on v24.');
  });

  it('is the demo base image: node 24 and a shell for ordinary RUN lines', async () => {
    const { stdout: version } = await podman(['run', '--rm', BASE_IMAGE, 'node', '--version']);
    expect(version.trim()).toMatch(/^v24\./);
    const dir = await mkdtemp(join(tmpdir(), 'base-image-'));
    const tag = `localhost/base-image-test-${Date.now()}`;
    try {
      await writeFile(
        join(dir, 'Dockerfile'),
        `FROM ${BASE_IMAGE}\nRUN mkdir -p /app/data && chmod 700 /app/data && echo ok > /app/data/made\nCMD ["node", "-e", "console.log(require('fs').readFileSync('/app/data/made', 'utf8').trim())"]\n`,
      );
      await podman(['build', '-q', '-t', tag, dir]);
      const { stdout } = await podman(['run', '--rm', tag]);
      expect(stdout.trim()).toBe('ok');
      const { stdout: mode } = await podman(['run', '--rm', tag, 'sh', '-c', 'stat -c %a /app/data 2>/dev/null || ls -ld /app/data']);
      expect(mode).toMatch(/700|drwx------/);
    } finally {
      await podman(['rmi', '-f', tag]).catch(() => {});
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('is what pitch validate takes for the Node 24 runtime', () => {
    expect(checkDockerfile(`FROM ${BASE_IMAGE}\nWORKDIR /app\nCMD ["node", "server.js"]\n`).notes.map((n) => n.code)).not.toContain(
      'runtime-not-node-24',
    );
  });
});
