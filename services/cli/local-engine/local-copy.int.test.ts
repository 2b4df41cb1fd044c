import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Docker from 'dockerode';
import { expect, it } from 'vitest';
import { testEnv } from '../../../test/support/services.js';
import { startLocalCopy } from './local-copy.js';

// The rehearsal's copy on podman sits on a user-mode network of its own (slirp4netns), not on the
// engine's bridge (docs/decisions/cli.md): its port still answers on 127.0.0.1 alone, and
// it still cannot reach what listens on this machine's loopback. Real podman.

// Answers `/` with ok, and `/reach?host=…&port=…` with whether a TCP connection there opens.
const SERVER = `const http = require('node:http'), net = require('node:net');
http.createServer((req, res) => {
  const url = new URL(req.url, 'http://x');
  if (url.pathname !== '/reach') return res.end('ok');
  const socket = net.connect(Number(url.searchParams.get('port')), url.searchParams.get('host'));
  const answer = (said) => { socket.destroy(); if (!res.headersSent) res.end(said); };
  socket.setTimeout(1500, () => answer('closed'));
  socket.on('connect', () => answer('open'));
  socket.on('error', () => answer('closed'));
}).listen(Number(process.env.PORT), process.env.HOST);`;

it("starts podman's copy on slirp4netns: it answers on 127.0.0.1, and this machine's loopback stays out of its reach", async () => {
  const docker = new Docker({ socketPath: testEnv().DOCKER_HOST.replace(/^unix:\/\//, '') });
  // A server on this machine's loopback only: what a copy must not reach.
  const host = createServer((_req, res) => res.end('host'));
  await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
  const hostPort = (host.address() as AddressInfo).port;
  const copy = await startLocalCopy(docker, 'localhost/demo-node:24', ['node', '-e', SERVER], {});
  let id = '';
  try {
    expect(copy.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    let answer = '';
    for (let tries = 0; tries < 100 && !answer; tries++) {
      answer = await fetch(`${copy.baseUrl}/`).then(
        (res) => res.text(),
        async () => (await new Promise((resolve) => setTimeout(resolve, 100)), ''),
      );
    }
    expect(answer).toBe('ok');
    const [container] = await docker
      .listContainers({ filters: { label: ['pitch.rehearsal=true'] } })
      .then((list) => list.filter((c) => copy.baseUrl.endsWith(`:${c.Ports.find((p) => p.PrivatePort === 8080)?.PublicPort}`)));
    id = container.Id;
    const inspected = await docker.getContainer(id).inspect();
    expect(inspected.HostConfig.NetworkMode).toMatch(/^slirp4netns/);
    // The port is published on the loopback alone.
    expect(inspected.HostConfig.PortBindings?.['8080/tcp']).toEqual([{ HostIp: '127.0.0.1', HostPort: expect.any(String) }]);
    // slirp4netns's address for the host, and podman's bridge gateway: neither opens the host's loopback.
    for (const address of ['10.0.2.2', '10.88.0.1']) {
      const reach = await fetch(`${copy.baseUrl}/reach?host=${address}&port=${hostPort}`).then((res) => res.text());
      expect(reach, address).toBe('closed');
    }
  } finally {
    await copy.remove();
    host.close();
  }
  // Removed, not only stopped.
  await expect(docker.getContainer(id).inspect()).rejects.toThrow();
});
