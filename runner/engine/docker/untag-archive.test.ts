import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import tar from 'tar-stream';
import { describe, expect, it } from 'vitest';
import { untagArchive } from './untag-archive.js';

async function archive(entries: Record<string, string>): Promise<Buffer> {
  const pack = tar.pack();
  for (const [name, body] of Object.entries(entries)) pack.entry({ name }, body);
  pack.finalize();
  const chunks: Buffer[] = [];
  for await (const c of pack) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

async function entriesOf(stream: Readable): Promise<Record<string, string>> {
  const extract = tar.extract();
  const out: Record<string, string> = {};
  const done = new Promise<void>((resolve, reject) => {
    extract.on('entry', (h, s, next) => {
      const chunks: Buffer[] = [];
      s.on('data', (c: unknown) => chunks.push(c as Buffer));
      s.on('end', () => {
        out[h.name] = Buffer.concat(chunks).toString();
        next();
      });
    });
    extract.on('finish', resolve);
    extract.on('error', reject);
  });
  stream.on('error', (err) => extract.destroy(err));
  stream.pipe(extract);
  await done;
  return out;
}

const untag = (bytes: Buffer) => untagArchive(Readable.from(bytes), { maxBytes: 1024 * 1024 });
/** A refused archive is cut short; why comes through imageId. */
const refusalOf = (bytes: Buffer) => {
  const { archive: out, imageId } = untag(bytes);
  out.resume();
  return imageId;
};

describe('untagging a bundle on its way into the engine', () => {
  it("drops the bundle's own tags and `repositories`, passes layers untouched, and gives the config's digest", async () => {
    const bytes = await archive({
      'abc.json': '{"config":{}}',
      'layer.tar': 'layer bytes',
      'manifest.json': JSON.stringify([
        { Config: 'abc.json', RepoTags: ['localhost/demo-node:base', 'localhost/build-other:latest'], Layers: ['layer.tar'] },
      ]),
      repositories: '{"localhost/demo-node":{"base":"abc"}}',
    });
    const { archive: out, imageId } = untag(bytes);
    const entries = await entriesOf(out);
    expect(Object.keys(entries).sort()).toEqual(['abc.json', 'layer.tar', 'manifest.json']);
    expect(JSON.parse(entries['manifest.json'])[0].RepoTags).toBeNull();
    expect(entries['layer.tar']).toBe('layer bytes');
    expect(await imageId).toBe(`sha256:${createHash('sha256').update('{"config":{}}').digest('hex')}`);
  });

  it('refuses a bundle of several images, or none', async () => {
    const two = await archive({ 'manifest.json': JSON.stringify([{ Config: 'a' }, { Config: 'b' }]) });
    await expect(refusalOf(two)).rejects.toThrow(/exactly one image/);
    const none = await archive({ 'x.json': '{}' });
    await expect(refusalOf(none)).rejects.toThrow(/no manifest/);
  });

  it('refuses names the engine could read as another: ./manifest.json, Manifest.json, index.json, a second manifest', async () => {
    const manifest = JSON.stringify([{ Config: 'abc.json', RepoTags: ['x'], Layers: [] }]);
    const tricks: Record<string, string>[] = [
      { './manifest.json': manifest },
      { 'Manifest.json': manifest },
      { 'index.json': '{}' },
      { 'a//b': 'x' },
    ];
    for (const trick of tricks) {
      const bytes = await archive({ ...trick, 'abc.json': '{}', 'manifest.json': manifest });
      await expect(refusalOf(bytes)).rejects.toThrow();
    }
  });

  it("stops an archive over the runner's size limit", async () => {
    const bytes = await archive({
      'big.tar': 'x'.repeat(4096),
      'abc.json': '{}',
      'manifest.json': '[{"Config":"abc.json","Layers":["big.tar"]}]',
    });
    const { archive: out, imageId } = untagArchive(Readable.from(bytes), { maxBytes: 2048 });
    out.resume();
    await expect(imageId).rejects.toThrow(/RUNNER_MAX_IMAGE_BYTES/);
  });
});
