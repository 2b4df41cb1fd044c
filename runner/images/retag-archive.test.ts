import { Readable } from 'node:stream';
import tar from 'tar-stream';
import { describe, expect, it } from 'vitest';
import { retagArchive } from './retag-archive.js';

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

describe('retagging a bundle on its way into the engine', () => {
  it("replaces the bundle's own tags with the runner's, drops `repositories`, passes layers untouched", async () => {
    const bytes = await archive({
      'abc.json': '{"config":{}}',
      'layer.tar': 'layer bytes',
      'manifest.json': JSON.stringify([{ Config: 'abc.json', RepoTags: ['localhost/demo-node:base', 'localhost/build-other:latest'], Layers: ['layer.tar'] }]),
      repositories: '{"localhost/demo-node":{"base":"abc"}}',
    });
    const out = await entriesOf(retagArchive(Readable.from(bytes), 'localhost/build-mine:latest'));
    expect(Object.keys(out).sort()).toEqual(['abc.json', 'layer.tar', 'manifest.json']);
    expect(JSON.parse(out['manifest.json'])[0].RepoTags).toEqual(['localhost/build-mine:latest']);
    expect(out['layer.tar']).toBe('layer bytes');
  });

  it('refuses a bundle of several images, or none', async () => {
    const two = await archive({ 'manifest.json': JSON.stringify([{ Config: 'a' }, { Config: 'b' }]) });
    await expect(entriesOf(retagArchive(Readable.from(two), 't'))).rejects.toThrow(/exactly one image/);
    const none = await archive({ 'x.json': '{}' });
    await expect(entriesOf(retagArchive(Readable.from(none), 't'))).rejects.toThrow(/no manifest/);
  });
});
