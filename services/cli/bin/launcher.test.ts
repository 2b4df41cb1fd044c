import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// The `pitch` bin (bin/pitch, a shell script) starts the tool on the project's pinned Node 24
// itself, where pitch.mjs's `#!/usr/bin/env node` made a machine with an older `node` start that
// first (and it then started Node 24 again).

const launcher = new URL('./pitch', import.meta.url).pathname;
const pkg = JSON.parse(await readFile(new URL('../../../package.json', import.meta.url), 'utf8')) as {
  version: string;
  bin: Record<string, string>;
};

/** A PATH holding the launcher's own tools and no `node` at all. */
async function pathWithoutNode(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'pitch-path-'));
  for (const tool of ['sh', 'readlink', 'dirname']) await symlink(`/usr/bin/${tool}`, join(dir, tool));
  return dir;
}

describe('the pitch launcher', () => {
  it('runs the tool on the pinned Node, found through the link npm makes to it, with no node on PATH', async () => {
    const links = await mkdtemp(join(tmpdir(), 'pitch-link-'));
    await symlink(launcher, join(links, 'pitch'));
    const run = spawnSync(join(links, 'pitch'), ['--version'], { env: { PATH: await pathWithoutNode() }, encoding: 'utf8' });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout.trim()).toBe(pkg.version);
  });

  // The head start loads through Node's own type stripping (type-stripping.mjs); a Node told not
  // to strip types loads it through tsx, as the rest of the tool.
  it('starts where Node strips types, and where it was told not to', async () => {
    const fixture = new URL('../../../test/fixtures/cli/container-app', import.meta.url).pathname;
    const config = await mkdtemp(join(tmpdir(), 'pitch-config-'));
    for (const options of ['', '--no-experimental-strip-types']) {
      const env = { PATH: await pathWithoutNode(), NODE_OPTIONS: options, XDG_CONFIG_HOME: config };
      const version = spawnSync(launcher, ['--version'], { env, encoding: 'utf8' });
      expect(version.status, version.stderr).toBe(0);
      expect(version.stdout.trim()).toBe(pkg.version);
      // A container folder's deploy starts the head start (its modules load: pitch.json checked, the
      // config read), which stops at the folder's missing record of a last deploy.
      const deploy = spawnSync(launcher, ['deploy', fixture, '--project', 'no-such-project'], { env, encoding: 'utf8' });
      expect(deploy.stderr).toMatch(/not signed in/);
    }
  });

  it('is the package bin', () => {
    expect(pkg.bin.pitch).toBe('services/cli/bin/pitch');
  });
});
