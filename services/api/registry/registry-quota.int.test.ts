import { createHash, randomBytes } from 'node:crypto';
import { globalAgent, request } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registryBucket, startRegistry } from '../../../infra/local/registry.mjs';
import { pushImage } from '../../cli/registry/push-image.js';
import { loadConfig } from '../../core/infra/config.js';
import { planOf } from '../../core/rules/plans.js';
import { createStorage } from '../../core/infra/storage.js';
import { registryBytesUsed } from '../../data/registry-usage.sql.js';
import { containerDemo } from '../../../test/fixtures/container-demo.js';
import { saveImage } from '../../../test/fixtures/make-bundle.js';
import { startPlatform, type Platform } from '../../../test/support/platform.js';
import { testEnv } from '../../../test/support/services.js';

// Issue 45, H1: the registry's storage bounded. Pushes reach the registry through the api's gate
// (registry-gate.routes.ts), which reserves each body's bytes against the workspace's plan quota
// before forwarding them. A registry (and bucket) of its own, so that its store's size is this
// file's alone.

const env = testEnv() as unknown as Record<string, string>;
const bucket = `registry-quota-${randomBytes(4).toString('hex')}`;
let dataDir: string;
let registry: Awaited<ReturnType<typeof startRegistry>>;
let platform: Platform;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'registry-quota-'));
  registry = await startRegistry({ dataDir, quiet: true, s3: { ...env, REGISTRY_S3_BUCKET: bucket } });
  platform = await startPlatform({ env: registry.env });
}, 120_000);
afterAll(async () => {
  // pitch's connections (Node's global agent keeps them alive) would hold the platform's close.
  globalAgent.destroy();
  await platform?.close();
  await registry?.stop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

/** Bytes of blob and upload data in the registry's store (Distribution's `…/data` objects on S3). */
async function storedBytes(): Promise<number> {
  const store = createStorage(loadConfig({ ...env, S3_BUCKET: registryBucket({ REGISTRY_S3_BUCKET: bucket }) }));
  try {
    const objects = await store.list('docker/registry/v2/');
    return objects.filter((o) => o.key.endsWith('/data')).reduce((sum, o) => sum + o.size, 0);
  } finally {
    store.client.destroy();
  }
}

async function builder(plan: string) {
  const person = await platform.person({ plan });
  const project = await person.client.call('createProject', { body: { slug: `q-${randomBytes(6).toString('hex')}`, name: 'Q' } });
  const account = await person.client.call('whoami', {});
  const workspaceId = account.workspace.id;
  const repository = `${workspaceId}/${project.id}`;
  const tokenReply = (actions: string) =>
    platform.fetch(`/v2/token?service=demo-rooms-registry&scope=${encodeURIComponent(`repository:${repository}:${actions}`)}`, {
      headers: { authorization: `Basic ${Buffer.from(`pitch:${person.token}`).toString('base64')}` },
    });
  return { person, workspaceId, repository, tokenReply };
}

/** The workspace's registry bytes filled up to `remaining` short of its plan's quota. */
async function fillUpTo(workspaceId: string, plan: string, remaining: number) {
  const bytes = planOf(plan).registryBytes - remaining;
  await platform.deps.sql`
    insert into registry_pushes (workspace_id, upload, bytes, digest)
    values (${workspaceId}, 'earlier pushes', ${bytes}, ${`sha256:${randomBytes(32).toString('hex')}`})`;
}

const grantOf = (token: string) =>
  (JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8')) as { access: { name: string; actions: string[] }[] }).access;

/** A PATCH of `bytes` random bytes to an open upload, chunked (no Content-Length), as docker pushes a layer. */
function chunkedPatch(url: string, token: string, bytes: number): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: 'PATCH', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream' } },
      (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString('utf8')));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    // The gate may answer and close before the whole body is written.
    req.on('error', reject);
    const body = Readable.from(
      (function* () {
        for (let sent = 0; sent < bytes; sent += 1 << 20) yield randomBytes(1 << 20);
      })(),
    );
    body.pipe(req);
  });
}

describe("the registry's quota (issue 45, H1)", () => {
  it('grants a Free account no push, only pull', async () => {
    const free = await builder('free');
    const reply = await free.tokenReply('push,pull');
    expect(reply.status).toBe(200);
    const access = grantOf((reply.body as { token: string }).token);
    expect(access.flatMap((a) => a.actions)).not.toContain('push');
    // And the registry, through the gate, refuses its upload.
    const opened = await fetch(`${platform.baseUrl}/v2/${free.repository}/blobs/uploads/`, {
      method: 'POST',
      headers: { authorization: `Bearer ${(reply.body as { token: string }).token}` },
    });
    expect([401, 403]).toContain(opened.status);
  });

  it('counts what a push through the gate stores, each blob once', async () => {
    const solo = await builder('solo');
    const { token, registry: gate } = (await solo.tokenReply('push,pull')).body as { token: string; registry: string };
    expect(gate).toBe(platform.baseUrl);
    const image = await saveImage(containerDemo, env);
    const pushed = await pushImage({ registryUrl: gate, repository: solo.repository, token }, Readable.from(image));
    const used = await registryBytesUsed(platform.deps.sql, solo.workspaceId);
    expect(used).toBeGreaterThanOrEqual(pushed.sent.bytes);
    // The same image again: nothing sent but the manifest, and it is the same digest.
    await pushImage({ registryUrl: gate, repository: solo.repository, token }, Readable.from(image));
    expect(await registryBytesUsed(platform.deps.sql, solo.workspaceId)).toBe(used);
  }, 120_000);

  it('refuses a push mid-way with the plan 402 once the quota is reached, and the store does not grow past it', async () => {
    const solo = await builder('solo');
    const remaining = 256 * 1024;
    await fillUpTo(solo.workspaceId, 'solo', remaining);
    const { token, registry: gate } = (await solo.tokenReply('push,pull')).body as { token: string; registry: string };
    const before = await storedBytes();

    // The image's config fits in what is left; its first large layer does not: refused, with the plan's 402.
    const image = await saveImage(containerDemo, env);
    await expect(pushImage({ registryUrl: gate, repository: solo.repository, token }, Readable.from(image))).rejects.toThrow(
      /answered 402/,
    );
    const afterPush = await storedBytes();
    expect(afterPush - before).toBeLessThanOrEqual(remaining);
    expect(await registryBytesUsed(platform.deps.sql, solo.workspaceId)).toBeLessThanOrEqual(planOf('solo').registryBytes);

    // A declared body past the quota: refused whole before it is read, with the plan's 402 body.
    const opened = await fetch(`${gate}/v2/${solo.repository}/blobs/uploads/`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(opened.status).toBe(202);
    const location = new URL(opened.headers.get('location')!, gate);
    const put = await fetch(`${location}&digest=sha256:${'0'.repeat(64)}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream' },
      body: new Uint8Array(randomBytes(remaining + 1)),
    });
    expect(put.status).toBe(402);
    expect(await put.json()).toEqual({
      error: "Your plan's image storage is full.",
      reason: 'limit',
      limit: 'registry',
      plan: 'solo',
      upgrade: 'pro',
    });
    // A chunked body (docker's PATCH) of 24 MiB: cut at the quota, refused with the 402.
    const patched = await chunkedPatch(location.toString(), token, 24 << 20);
    expect(patched.status).toBe(402);
    expect(JSON.parse(patched.body)).toMatchObject({ reason: 'limit', limit: 'registry' });
    expect((await storedBytes()) - before).toBeLessThanOrEqual(remaining);

    // Past its quota (a token taken before it got there is still good for its 15 minutes): a push
    // is refused at its first byte, declared or chunked, and the store does not grow at all.
    await platform.deps.sql`
      insert into registry_pushes (workspace_id, upload, bytes, digest)
      values (${solo.workspaceId}, 'more earlier pushes', ${remaining + (1 << 20)}, ${`sha256:${randomBytes(32).toString('hex')}`})`;
    expect(await registryBytesUsed(platform.deps.sql, solo.workspaceId)).toBeGreaterThan(planOf('solo').registryBytes);
    const past = await storedBytes();
    const again = await fetch(`${gate}/v2/${solo.repository}/blobs/uploads/`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(again.status).toBe(202);
    const pastLocation = new URL(again.headers.get('location')!, gate);
    const small = await fetch(`${pastLocation}&digest=sha256:${'0'.repeat(64)}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream' },
      body: new Uint8Array(randomBytes(1024)),
    });
    expect(small.status).toBe(402);
    expect((await chunkedPatch(pastLocation.toString(), token, 4 << 20)).status).toBe(402);
    expect(await storedBytes()).toBe(past);
  }, 120_000);

  it("counts docker's way of pushing (a chunked PATCH, then an empty PUT) by what it sent, and forwards no body it cannot charge", async () => {
    const solo = await builder('solo');
    const { token, registry: gate } = (await solo.tokenReply('push,pull')).body as { token: string; registry: string };
    const opened = await fetch(`${gate}/v2/${solo.repository}/blobs/uploads/`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(opened.status).toBe(202);
    const location = new URL(opened.headers.get('location')!, gate);
    const layer = randomBytes(3 << 20);
    const patched = await new Promise<{ status: number; location: string }>((resolve, reject) => {
      const req = request(location, { method: 'PATCH', headers: { authorization: `Bearer ${token}` } }, (res) => {
        res.resume();
        resolve({ status: res.statusCode ?? 0, location: String(res.headers.location) });
      });
      req.on('error', reject);
      Readable.from([layer.subarray(0, 1 << 20), layer.subarray(1 << 20)]).pipe(req);
    });
    expect(patched.status).toBe(202);
    expect(await registryBytesUsed(platform.deps.sql, solo.workspaceId)).toBe(layer.length);
    const digest = `sha256:${createHash('sha256').update(layer).digest('hex')}`;
    const put = await fetch(`${new URL(patched.location, gate)}&digest=${digest}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(put.status).toBe(201);
    const [row] = await platform.deps.sql<{ digest: string; bytes: string }[]>`
      select digest, bytes::text from registry_pushes where workspace_id = ${solo.workspaceId}`;
    expect(row).toEqual({ digest, bytes: String(layer.length) });
    // A body to a path the gate does not charge (the repository spelled in capitals) is not forwarded.
    const shouted = await fetch(`${gate}/v2/${solo.repository.toUpperCase()}/blobs/uploads/?digest=${digest}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      body: new Uint8Array(layer),
    });
    expect(shouted.status).toBe(404);
  }, 60_000);

  it('refuses a push token with the plan 402 when the workspace is at its quota; pull is still granted', async () => {
    const solo = await builder('solo');
    await fillUpTo(solo.workspaceId, 'solo', 0);
    const refused = await solo.tokenReply('push,pull');
    expect(refused.status).toBe(402);
    expect(refused.body).toEqual({
      error: "Your plan's image storage is full.",
      reason: 'limit',
      limit: 'registry',
      plan: 'solo',
      upgrade: 'pro',
    });
    expect((await solo.tokenReply('pull')).status).toBe(200);
  });
});
