import { randomBytes } from 'node:crypto';
import { writeFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlatform, type Platform } from '../../../test/support/platform.js';
import { uniqueSlug } from '../../../test/support/refusal.js';
import { flakyGateway } from '../../../test/support/flaky-gateway.js';
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
    // The first PUT of part 2 is cut half way.
    let broken = false;
    const store = await flakyGateway(platform.deps.config.S3_ENDPOINT!, (req) => {
      if (broken || !/[?&]partNumber=2(&|$)/.test(req.url ?? '')) return 'pass';
      broken = true;
      return { breakAfter: 1024 * 1024 };
    });
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
