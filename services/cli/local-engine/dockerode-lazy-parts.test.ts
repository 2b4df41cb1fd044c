import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

// In a process of its own: the require cache is shared by everything a test worker has loaded,
// and dockerode loaded whole by an earlier file would leave nothing to stand in for.

const CHILD = `
const { register } = await import('tsx/esm/api');
register();
const { createRequire } = await import('node:module');
const { Agent } = await import('node:http');
const require = createRequire(process.cwd() + '/');
const loaded = () => Object.keys(require.cache).filter((file) => /[\\\\/](@grpc|ssh2)[\\\\/]/.test(file)).length;
const { findEngine } = await import('./services/cli/local-engine/local-docker.ts');
const afterLoad = loaded();
const ssh = require(createRequire(require.resolve('docker-modem')).resolve('./ssh.js'));
const agent = ssh({ host: '127.0.0.1' });
console.log(JSON.stringify({ findEngine: typeof findEngine, afterLoad, afterCall: loaded(), agent: agent instanceof Agent }));
`;

describe('dockerode-lazy-parts', () => {
  it('loads dockerode without its gRPC session and ssh2, and still loads ssh2 when a DOCKER_HOST of ssh:// calls it', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', CHILD], { cwd: process.cwd() });
    const seen = JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;
    expect(seen.findEngine).toBe('function');
    expect(seen.afterLoad).toBe(0);
    expect(seen.afterCall).toBeGreaterThan(0);
    expect(seen.agent).toBe(true);
  });
});
