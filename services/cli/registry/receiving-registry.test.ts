import { createHash } from 'node:crypto';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startReceivingRegistry, type ReceivingRegistry } from './receiving-registry.js';

// The registry `pitch deploy` runs on 127.0.0.1 for the engine's push, driven over real HTTP as
// the distribution spec's push flow goes: ping, HEAD, chunked and monolithic uploads, manifest.

const digestOf = (bytes: Buffer) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
const base = digestOf(Buffer.from('the base layer the platform has'));

let spoolDir: string;
let registry: ReceivingRegistry;
let url: (path: string) => string;

beforeEach(async () => {
  spoolDir = await mkdtemp(join(tmpdir(), 'receiving-registry-'));
  registry = await startReceivingRegistry({
    spoolDir,
    maxBytes: 64 * 1024,
    claim: async (digest) => (digest === base ? 1234 : null),
  });
  const [host, name] = registry.reference.split('/');
  url = (path) => `http://${host}/v2/${name}${path}`;
});
afterEach(async () => {
  await registry.close();
  await rm(spoolDir, { recursive: true, force: true });
});

/** Opens an upload; its location, as the registry gives it. */
async function open(): Promise<string> {
  const res = await fetch(url('/blobs/uploads/'), { method: 'POST' });
  expect(res.status).toBe(202);
  expect(res.headers.get('range')).toBe('0-0');
  return new URL(res.headers.get('location')!, url('/')).toString();
}

describe('the receiving registry', () => {
  it('answers the ping, on loopback only, and notes that the engine reached it', async () => {
    expect(registry.reference).toMatch(/^127\.0\.0\.1:\d+\/pitch-push-[0-9a-f]{16}$/);
    const res = await fetch(`http://${registry.reference.split('/')[0]}/v2/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('docker-distribution-api-version')).toBe('registry/2.0');
    await expect(registry.reached).resolves.toBeUndefined();
  });

  it('says it has a layer the platform has, with its size, and nothing else', async () => {
    const claimed = await fetch(url(`/blobs/${base}`), { method: 'HEAD' });
    expect(claimed.status).toBe(200);
    expect(claimed.headers.get('content-length')).toBe('1234');
    expect((await fetch(url(`/blobs/${digestOf(Buffer.from('other'))}`), { method: 'HEAD' })).status).toBe(404);
    // A claimed blob's bytes are on the platform, not here: a GET of it finds nothing.
    expect((await fetch(url(`/blobs/${base}`))).status).toBe(404);
  });

  it('takes a chunked upload, checks it against its digest and keeps it on disk', async () => {
    const bytes = Buffer.from('a changed layer, sent in two chunks');
    const location = await open();
    const patched = await fetch(location, { method: 'PATCH', body: bytes.subarray(0, 10) });
    expect(patched.status).toBe(202);
    expect(patched.headers.get('range')).toBe('0-9');
    const put = await fetch(`${location}?digest=${digestOf(bytes)}`, { method: 'PUT', body: bytes.subarray(10) });
    expect(put.status).toBe(201);
    expect(put.headers.get('docker-content-digest')).toBe(digestOf(bytes));
    const kept = registry.received.get(digestOf(bytes))!;
    expect(kept.size).toBe(bytes.length);
    expect(await readFile(kept.file)).toEqual(bytes);
    expect((await fetch(url(`/blobs/${digestOf(bytes)}`), { method: 'HEAD' })).status).toBe(200);
  });

  it('takes a monolithic upload (POST with its digest)', async () => {
    const bytes = Buffer.from('{"config":true}');
    const res = await fetch(url(`/blobs/uploads/?digest=${digestOf(bytes)}`), { method: 'POST', body: bytes });
    expect(res.status).toBe(201);
    expect(registry.received.has(digestOf(bytes))).toBe(true);
  });

  it('refuses bytes that do not match their digest, and keeps nothing of them', async () => {
    const location = await open();
    const res = await fetch(`${location}?digest=${digestOf(Buffer.from('what it claims'))}`, { method: 'PUT', body: 'what it sends' });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { errors: { code: string }[] }).errors[0].code).toBe('DIGEST_INVALID');
    expect(registry.received.size).toBe(0);
    expect(await readdir(spoolDir)).toEqual([]);
  });

  it('refuses a push larger than its bound, keeping nothing of it', async () => {
    const location = await open();
    const big = Buffer.alloc(65 * 1024, 1);
    const res = await fetch(`${location}?digest=${digestOf(big)}`, { method: 'PUT', body: big });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { errors: { code: string }[] }).errors[0].code).toBe('BLOB_UPLOAD_INVALID');
    expect(registry.received.size).toBe(0);
    expect(await readdir(spoolDir)).toEqual([]);
  });

  it('keeps the manifest the push ends with, and answers 404 for any other repository', async () => {
    const manifest = Buffer.from(JSON.stringify({ schemaVersion: 2, layers: [] }));
    const res = await fetch(url('/manifests/deploy'), { method: 'PUT', body: manifest });
    expect(res.status).toBe(201);
    expect(res.headers.get('docker-content-digest')).toBe(digestOf(manifest));
    expect(registry.manifest()).toEqual(manifest);
    const [host] = registry.reference.split('/');
    const foreign = await fetch(`http://${host}/v2/someone-else/blobs/uploads/`, { method: 'POST' });
    expect(foreign.status).toBe(404);
    expect(((await foreign.json()) as { errors: { code: string }[] }).errors[0].code).toBe('NAME_UNKNOWN');
  });
});
