import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import tar from 'tar-stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { saveImage } from '../../../test/fixtures/make-bundle.js';
import { startPlatform, type Platform } from '../../../test/support/platform.js';
import { testEnv } from '../../../test/support/services.js';
import { pushImage } from '../../cli/registry/push-image.js';
import { workspacePullLogin } from '../../core/infra/registry/registry-pull.js';
import { revokePullLogins } from '../../data/pull-logins.sql.js';
import { registryTokenKey } from '../../core/infra/registry/registry-token.js';

// The registry for real (docker-registry, token auth) with tokens from the api's /v2/token: what
// one workspace's token may do to another's repository, and the push that skips what is there.
const env = testEnv() as unknown as Record<string, string>;
const registryUrl = env.REGISTRY_URL!;
const demo = fileURLToPath(new URL('../../../test/fixtures/container-demo', import.meta.url));

let platform: Platform;
let work: string;
beforeAll(async () => {
  platform = await startPlatform();
  work = await mkdtemp(join(tmpdir(), 'registry-test-'));
});
afterAll(async () => {
  await platform?.close();
  await rm(work, { recursive: true, force: true });
});

/** A builder with a project: the repository its images go to, and a way to ask for tokens. */
async function builder() {
  const person = await platform.person({ plan: 'solo' });
  const project = await person.client.call('createProject', { body: { slug: `r-${crypto.randomUUID().slice(0, 12)}`, name: 'R' } });
  const account = await person.client.call('whoami', {});
  const repository = `${account.workspace.id}/${project.id}`;
  const token = async (scopes: string[]) => {
    const query = scopes.map((s) => `scope=${encodeURIComponent(s)}`).join('&');
    const res = await platform.fetch(`/v2/token?service=demo-rooms-registry&${query}`, {
      headers: { authorization: `Basic ${Buffer.from(`pitch:${person.token}`).toString('base64')}` },
    });
    expect(res.status).toBe(200);
    return (res.body as { token: string }).token;
  };
  return { person, project, repository, token };
}

const reg = (path: string, token: string, init: RequestInit = {}) =>
  fetch(`${registryUrl}/v2/${path}`, { ...init, headers: { authorization: `Bearer ${token}`, ...init.headers } });

/** The demo folder with its server's first line changed: one layer differs. */
async function changedDemo(line: string) {
  const dir = await mkdtemp(join(work, 'demo-'));
  await cp(demo, dir, { recursive: true });
  const server = join(dir, 'server.js');
  await writeFile(server, `// ${line}\n${await readFile(server, 'utf8')}`);
  return dir;
}

describe('the image registry', () => {
  it('pushes only the layers it lacks: a redeploy with one changed line sends one layer', async () => {
    const a = await builder();
    const push = await a.token([`repository:${a.repository}:push,pull`]);
    const first = await pushImage(
      { registryUrl, repository: a.repository, token: push },
      Readable.from(await saveImage(await changedDemo('one'), env)),
    );
    expect(first.sent.layers).toBeGreaterThan(0);
    expect(first.manifestDigest).toMatch(/^sha256:[0-9a-f]{64}$/);

    const second = await pushImage(
      { registryUrl, repository: a.repository, token: push },
      Readable.from(await saveImage(await changedDemo('two'), env)),
    );
    expect(second.sent.layers).toBe(1);
    expect(second.skipped.layers).toBe(first.sent.layers + first.skipped.layers - 1);
    expect(second.sent.bytes).toBeLessThan(1024 * 1024);
    expect((await reg(`${a.repository}/manifests/${second.manifestDigest}`, push, { method: 'HEAD' })).status).toBe(200);
  });

  it("never lets one workspace's token pull, push or mount another's repository", async () => {
    const a = await builder();
    const b = await builder();
    const pushA = await a.token([`repository:${a.repository}:push,pull`]);
    const pushed = await pushImage({ registryUrl, repository: a.repository, token: pushA }, Readable.from(await saveImage(demo, env)));
    const manifest = (await (await reg(`${a.repository}/manifests/${pushed.manifestDigest}`, pushA)).json()) as {
      layers: { digest: string }[];
    };
    const layer = manifest.layers[0].digest;

    // B asks for A's repository by name: the api grants nothing on it.
    const stolen = await b.token([`repository:${a.repository}:push,pull`, `repository:${b.repository}:push,pull`]);
    const denied = [401, 403];
    expect(denied).toContain((await reg(`${a.repository}/manifests/${pushed.manifestDigest}`, stolen)).status);
    expect(denied).toContain((await reg(`${a.repository}/blobs/${layer}`, stolen)).status);
    expect(denied).toContain((await reg(`${a.repository}/blobs/uploads/`, stolen, { method: 'POST' })).status);
    // A mount into B's own repository from A's needs pull on A's: refused, and nothing lands in B's.
    const mount = await reg(`${b.repository}/blobs/uploads/?mount=${layer}&from=${a.repository}`, stolen, { method: 'POST' });
    expect(denied).toContain(mount.status);
    expect((await reg(`${b.repository}/blobs/${layer}`, stolen, { method: 'HEAD' })).status).toBe(404);
    // A token with no grant at all is refused too.
    expect(denied).toContain((await reg(`${a.repository}/manifests/${pushed.manifestDigest}`, await b.token([]))).status);
  });

  it("mounts a layer another project of the same workspace holds, and never one of another workspace's (issue 48, item 4)", async () => {
    const a = await builder();
    const pushA = await a.token([`repository:${a.repository}:push,pull`]);
    const image = await saveImage(demo, env);
    const firstPush = await pushImage({ registryUrl, repository: a.repository, token: pushA }, Readable.from(image));
    expect(firstPush.sent.bytes).toBeGreaterThan(1024 * 1024);

    // A second project of A's workspace: the base's layers are mounted from the first, not sent.
    const second = await a.person.client.call('createProject', { body: { slug: `r-${crypto.randomUUID().slice(0, 12)}`, name: 'R2' } });
    const secondRepository = `${a.repository.split('/')[0]}/${second.id}`;
    const pushSecond = await a.token([`repository:${secondRepository}:push,pull`, `repository:${a.repository}:pull`]);
    const mounted = await pushImage(
      { registryUrl, repository: secondRepository, token: pushSecond, mountFrom: [a.repository] },
      Readable.from(image),
    );
    expect(mounted.mounted.layers).toBeGreaterThan(0);
    expect(mounted.sent.bytes).toBeLessThan(1024 * 1024);
    expect((await reg(`${secondRepository}/manifests/${mounted.manifestDigest}`, pushSecond, { method: 'HEAD' })).status).toBe(200);

    // B names A's repository as a source: its token grants nothing there, so nothing is mounted
    // and B sends every layer itself.
    const b = await builder();
    const pushB = await b.token([`repository:${b.repository}:push,pull`, `repository:${a.repository}:pull`]);
    const own = await pushImage({ registryUrl, repository: b.repository, token: pushB, mountFrom: [a.repository] }, Readable.from(image));
    expect(own.mounted.layers).toBe(0);
    expect(own.sent.bytes).toBe(firstPush.sent.bytes);
  });

  it("trades a workspace's pull login (a Kubernetes node's pull secret) for pull on that workspace's repositories alone", async () => {
    const a = await builder();
    const b = await builder();
    const pushA = await a.token([`repository:${a.repository}:push,pull`]);
    const pushed = await pushImage({ registryUrl, repository: a.repository, token: pushA }, Readable.from(await saveImage(demo, env)));
    const key = registryTokenKey(await readFile(env.REGISTRY_TOKEN_KEY_FILE!, 'utf8'));
    const workspaceOf = (repository: string) => repository.split('/')[0];
    const login = workspacePullLogin(key, workspaceOf(a.repository));
    const tokenFor = async (scope: string, password = login.password) => {
      const res = await platform.fetch(`/v2/token?service=demo-rooms-registry&scope=${encodeURIComponent(scope)}`, {
        headers: { authorization: `Basic ${Buffer.from(`${login.username}:${password}`).toString('base64')}` },
      });
      return res;
    };
    const asked = await tokenFor(`repository:${a.repository}:push,pull`);
    expect(asked.status).toBe(200);
    const pull = (asked.body as { token: string }).token;
    expect((await reg(`${a.repository}/manifests/${pushed.manifestDigest}`, pull, { method: 'HEAD' })).status).toBe(200);
    const denied = [401, 403];
    expect(denied).toContain((await reg(`${a.repository}/blobs/uploads/`, pull, { method: 'POST' })).status);
    // Another workspace's repository: nothing granted.
    const other = (await tokenFor(`repository:${b.repository}:pull`)).body as { token: string };
    expect(denied).toContain((await reg(`${b.repository}/manifests/${pushed.manifestDigest}`, other.token, { method: 'HEAD' })).status);
    // The login itself is no registry token, and a login altered by a byte is no login.
    expect(denied).toContain((await reg(`${a.repository}/manifests/${pushed.manifestDigest}`, login.password, { method: 'HEAD' })).status);
    expect((await tokenFor(`repository:${a.repository}:pull`, `${login.password.slice(0, -2)}AA`)).status).toBe(401);
  });

  it('never takes a token it handed out as a pull login, and refuses a login once revoked or its workspace is suspended or deleted (issue 45, M1)', async () => {
    const key = registryTokenKey(await readFile(env.REGISTRY_TOKEN_KEY_FILE!, 'utf8'));
    const trade = (repository: string, password: string) =>
      platform.fetch(`/v2/token?service=demo-rooms-registry&scope=${encodeURIComponent(`repository:${repository}:pull`)}`, {
        headers: { authorization: `Basic ${Buffer.from(`workspace-pull:${password}`).toString('base64')}` },
      });
    const a = await builder();
    const workspaceId = a.repository.split('/')[0];
    const login = workspacePullLogin(key, workspaceId);
    const first = await trade(a.repository, login.password);
    expect(first.status).toBe(200);
    // The token it gave, used as the password in turn: no login (it would renew the login for ever).
    const traded = (first.body as { token: string }).token;
    expect((await trade(a.repository, traded)).status).toBe(401);

    // Revoked: every login issued so far is refused; one issued afterwards is honoured.
    await revokePullLogins(platform.deps.sql, workspaceId);
    expect((await trade(a.repository, login.password)).status).toBe(401);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const fresh = workspacePullLogin(key, workspaceId);
    expect((await trade(a.repository, fresh.password)).status).toBe(200);

    // Suspended, then deleted: refused.
    await platform.deps.sql`update workspaces set suspended_at = now() where id = ${workspaceId}`;
    expect((await trade(a.repository, fresh.password)).status).toBe(401);
    await platform.deps.sql`update workspaces set suspended_at = null, deleted_at = now() where id = ${workspaceId}`;
    expect((await trade(a.repository, fresh.password)).status).toBe(401);
  });

  it('refuses a token to no one signed in, and scopes of other shapes or too many', async () => {
    expect((await platform.fetch('/v2/token?scope=repository:a/b:pull')).status).toBe(401);
    const b = await builder();
    const bearer = { headers: { authorization: `Bearer ${b.person.token}` } };
    expect((await platform.fetch('/v2/token?scope=registry:catalog:*', bearer)).status).toBe(400);
    const many = Array.from({ length: 5 }, () => `scope=repository:${b.repository}:pull`).join('&');
    expect((await platform.fetch(`/v2/token?${many}`, bearer)).status).toBe(400);
  });

  it('fails a push whose layer is not the bytes its digest names, with a clear error', async () => {
    const a = await builder();
    const push = await a.token([`repository:${a.repository}:push,pull`]);
    const archive = await tamperedLayer(await saveImage(await changedDemo('tampered'), env));
    await expect(pushImage({ registryUrl, repository: a.repository, token: push }, Readable.from(archive))).rejects.toThrow(
      /do not match its digest \(DIGEST_INVALID\)/,
    );
  });
});

/** The archive with one byte of its last layer changed (same name, same size): a tampered layer. */
async function tamperedLayer(archive: Buffer): Promise<Buffer> {
  const entries: { header: tar.Header; body: Buffer }[] = [];
  const extract = tar.extract();
  extract.on('entry', (header, stream, next) => {
    const chunks: Buffer[] = [];
    stream.on('data', (c: unknown) => chunks.push(c as Buffer));
    stream.on('end', () => {
      entries.push({ header, body: Buffer.concat(chunks) });
      next();
    });
  });
  await new Promise((resolve, reject) => {
    extract.on('finish', () => resolve(undefined));
    extract.on('error', reject);
    extract.end(archive);
  });
  const layers = entries.filter((e) => /^[0-9a-f]{64}\.tar$/.test(e.header.name) && e.header.type === 'file');
  const victim = layers.at(-1)!;
  victim.body[victim.body.length - 1024] ^= 1;
  const pack = tar.pack();
  for (const e of entries) pack.entry(e.header, e.body);
  pack.finalize();
  const chunks: Buffer[] = [];
  for await (const c of pack) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}
