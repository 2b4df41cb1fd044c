import { randomBytes } from 'node:crypto';
import { writeFile, mkdtemp, rm } from 'node:fs/promises';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlatform, type Platform } from '../../../test/support/platform.js';
import { uniqueSlug } from '../../../test/support/refusal.js';
import { uploadDirect } from './direct-upload.js';

// The CLI's direct upload against the real store: a part whose first try breaks off is sent
// again on its own, and the assembled object is the file.

let platform: Platform;
let dir: string;
beforeAll(async () => {
  platform = await startPlatform();
  dir = await mkdtemp(join(tmpdir(), 'direct-upload-'));
});
afterAll(async () => {
  await platform.close();
  await rm(dir, { recursive: true, force: true });
});

/**
 * A pass-through in front of the store that cuts the connection of the first PUT of part 2 half
 * way. The Host header is put back to the store's, so the presigned signature still holds.
 */
async function flakyStore(target: string): Promise<{ origin: string; close: () => Promise<void> }> {
  const to = new URL(target);
  let broken = false;
  const server: Server = createServer((req, res) => {
    const partTwo = /[?&]partNumber=2(&|$)/.test(req.url ?? '');
    if (partTwo && !broken) {
      broken = true;
      let seen = 0;
      req.on('data', (chunk: Buffer) => {
        seen += chunk.length;
        if (seen > 1024 * 1024) req.socket.destroy();
      });
      return;
    }
    const upstream = request(
      { host: to.hostname, port: to.port, path: req.url, method: req.method, headers: { ...req.headers, host: to.host } },
      (reply) => {
        res.writeHead(reply.statusCode ?? 502, reply.headers);
        reply.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('uploadDirect', () => {
  it('sends a part again on its own when its first try breaks off, then the upload completes whole', async () => {
    const { client } = await platform.person();
    const project = await client.call('createProject', { body: { slug: uniqueSlug('cdu'), name: 'Direct' } });
    const bytes = randomBytes(17 * 1024 * 1024); // three parts: 8 + 8 + 1 MiB
    const file = join(dir, 'archive.bin');
    await writeFile(file, bytes);
    const { uploadId, direct } = await client.call('startUpload', {
      params: { projectId: project.id },
      body: { kind: 'static', sizeBytes: bytes.length, direct: true },
    });
    const store = await flakyStore(platform.deps.config.S3_ENDPOINT!);
    const via = {
      ...direct!,
      parts: direct!.parts.map((p) => ({ ...p, url: store.origin + new URL(p.url).pathname + new URL(p.url).search })),
    };
    const lines: string[] = [];
    let counted = 0;
    try {
      const parts = await uploadDirect({ direct: via, file, onBytes: (n) => (counted += n), onPart: (line) => lines.push(line) });
      expect(parts.map((p) => p.partNumber)).toEqual([1, 2, 3]);
      await client.call('completeUpload', { params: { uploadId }, body: { parts } });
    } finally {
      await store.close();
    }
    expect(lines.filter((l) => l.includes('failed'))).toEqual([expect.stringMatching(/^part 2\/3: try 1 failed \(.+\); trying again$/)]);
    expect(lines.filter((l) => / sent \(/.test(l)).sort()).toEqual(
      [1, 2, 3].map((n) => expect.stringMatching(new RegExp(`^part ${n}/3 sent`))),
    );
    expect(counted).toBe(bytes.length);
    const stored = await platform.deps.storage.get(`uploads/${uploadId}`);
    const back: Buffer[] = [];
    for await (const chunk of stored!.body) back.push(chunk as Buffer);
    expect(Buffer.concat(back).equals(bytes)).toBe(true);
  });
});
