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
const { PassThrough } = await import('node:stream');
const loaded = (pattern) => Object.keys(require.cache).filter((file) => pattern.test(file)).length;
const SESSION = /[\\\\/](@grpc|ssh2)[\\\\/]/;
// What the stood-in modules require (the stand-ins themselves are in the cache under the modules' names).
const STREAMS = /[\\\\/](tar-fs[\\\\/]node_modules|readable-stream)[\\\\/]/;
const { loadDockerode } = await import('./services/cli/local-engine/dockerode-lazy-parts.ts');
const Docker = loadDockerode();
const afterLoad = { session: loaded(SESSION), streams: loaded(STREAMS), dockerode: loaded(/[\\/]dockerode[\\/]lib[\\/]docker.js$/) };
const ssh = require(createRequire(require.resolve('docker-modem')).resolve('./ssh.js'));
const agent = ssh({ host: '127.0.0.1' });
const modemRequire = createRequire(require.resolve('docker-modem'));
const HttpDuplex = modemRequire('./http_duplex.js');
const res = new PassThrough();
const duplex = new HttpDuplex(new PassThrough(), res);
const read = new Promise((resolve) => duplex.on('data', (chunk) => resolve(String(chunk))));
res.write('answered');
const tar = createRequire(require.resolve('dockerode'))('tar-fs');
const packed = typeof tar.pack('.', { entries: [] }).pipe;
console.log(JSON.stringify({
  docker: typeof new Docker({ socketPath: '/nowhere' }).createContainer, afterLoad, afterCall: { session: loaded(SESSION), streams: loaded(STREAMS) },
  agent: agent instanceof Agent, duplex: await read, isDuplex: typeof duplex.write, packed,
}));
`;

describe('dockerode-lazy-parts', () => {
  it('loads dockerode without its gRPC session, ssh2, tar-fs or readable-stream, and each still works once something uses it', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', CHILD], { cwd: process.cwd() });
    const seen = JSON.parse(stdout.trim().split('\n').at(-1)!) as {
      docker: string;
      afterLoad: { session: number; streams: number; dockerode: number };
      afterCall: { session: number; streams: number };
      agent: boolean;
      duplex: string;
      isDuplex: string;
      packed: string;
    };
    expect(seen.docker).toBe('function');
    expect(seen.afterLoad).toEqual({ session: 0, streams: 0, dockerode: 1 });
    expect(seen.afterCall.session).toBeGreaterThan(0);
    expect(seen.afterCall.streams).toBeGreaterThan(0);
    // ssh:// gives its agent; a hijacked connection's duplex (made with `new`) carries the answer; tar-fs packs.
    expect(seen.agent).toBe(true);
    expect(seen.duplex).toBe('answered');
    expect(seen.isDuplex).toBe('function');
    expect(seen.packed).toBe('function');
  });
});
