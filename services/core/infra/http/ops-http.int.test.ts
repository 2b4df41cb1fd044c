import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlatform, type Platform } from '../../../../test/support/platform.js';
import { tgz } from '../../../../test/support/archives.js';
import { uniqueSlug } from '../../../../test/support/refusal.js';
import { testEnv } from '../../../../test/support/services.js';
import { issueToken } from '../../../ops/ops.service.js';
import { queueNames } from '../queues.js';

// The operator's pages in the api: /ops/metrics and /ops/queues answer OPS_TOKEN and refuse
// every builder credential, in the spec's error shape.

let platform: Platform;
const opsToken = testEnv().OPS_TOKEN;
beforeAll(async () => {
  platform = await startPlatform({ workers: true });
});
afterAll(async () => {
  await platform.close();
});

const basic = (password: string) => `Basic ${Buffer.from(`operator:${password}`).toString('base64')}`;

/** A builder signed in through the web app: their session travels as the cookie. */
async function webSession() {
  const { token } = await issueToken(platform.deps.sql, `w-${crypto.randomUUID()}@example.com`, { kind: 'web' });
  return token;
}

describe.each(['/ops/metrics', '/ops/queues', '/ops/queues/api/queues'])('%s', (path) => {
  it('asks for a credential when given none (401, with a Basic challenge for browsers)', async () => {
    const res = await platform.fetch(path);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'sign in first' });
    expect(res.headers.get('www-authenticate')).toMatch(/^Basic realm=/);
  });

  it("refuses a builder's bearer token, even a read-write one of a paid plan (403)", async () => {
    const { token } = await platform.person({ plan: 'agency' });
    const res = await platform.fetch(path, { token });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: 'role cannot', reason: 'permission', action: 'ops' });
  });

  it("refuses a builder's session cookie (403)", async () => {
    const res = await platform.fetch(path, { headers: { cookie: `__Host-pp_session=${await webSession()}` } });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: 'role cannot', reason: 'permission', action: 'ops' });
  });

  it('refuses a wrong token', async () => {
    expect((await platform.fetch(path, { token: `${opsToken}x` })).status).toBe(403);
    expect((await platform.fetch(path, { headers: { authorization: basic('not-it') } })).status).toBe(401);
  });

  it("answers the operator's token, as a bearer and as a browser's Basic password", async () => {
    expect((await platform.fetch(path, { token: opsToken })).status).toBe(200);
    expect((await platform.fetch(path, { headers: { authorization: basic(opsToken) } })).status).toBe(200);
  });

  it("answers the operator's token even beside a builder's cookie", async () => {
    const res = await platform.fetch(path, { token: opsToken, headers: { cookie: `__Host-pp_session=${await webSession()}` } });
    expect(res.status).toBe(200);
  });
});

describe('/ops/queues', () => {
  it('is bull-board, showing every queue of the job catalog', async () => {
    const page = await platform.fetch('/ops/queues', { token: opsToken });
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.body).toContain('<base href="/ops/queues/" />');

    const api = await platform.fetch('/ops/queues/api/queues', { token: opsToken });
    expect(api.status).toBe(200);
    expect(api.body.queues.map((q: { name: string }) => q.name).sort()).toEqual([...queueNames].sort());
  });

  it("refuses a change made with a browser's Basic credentials from another site (CSRF)", async () => {
    const retry = '/ops/queues/api/queues/archive.unpack/retry/failed';
    const forged = await platform.fetch(retry, {
      method: 'PUT',
      headers: { authorization: basic(opsToken), origin: 'https://evil.example' },
    });
    expect(forged.status).toBe(403);
    expect(forged.body).toEqual({ error: 'refused: cross-site request', reason: 'csrf', action: 'ops' });
    const own = await platform.fetch(retry, { method: 'PUT', headers: { authorization: basic(opsToken), origin: platform.baseUrl } });
    expect(own.status).toBe(200);
    // A bearer is never added by a browser, so it needs no such check.
    expect((await platform.fetch(retry, { method: 'PUT', token: opsToken })).status).toBe(200);
  });

  it("keeps its static files behind the operator's token too", async () => {
    const page = await platform.fetch('/ops/queues', { token: opsToken });
    const script = /src="(static\/js\/[^"]+\.js)"/.exec(page.body as string)?.[1];
    expect(script).toBeTruthy();
    const asset = `/ops/queues/${script}`;
    expect((await platform.fetch(asset)).status).toBe(401);
    const served = await platform.fetch(asset, { token: opsToken });
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toMatch(/javascript/);
  });
});

describe('/ops/metrics', () => {
  it('shows request latency by route pattern, queue depths, job durations and unpacked bytes', async () => {
    // One deploy through the real workers, so the job metrics have something to show.
    const { client, token } = await platform.person();
    const project = await client.call('createProject', { body: { slug: uniqueSlug('m'), name: 'Metrics' } });
    const bytes = await tgz({ 'index.html': '<h1>metrics</h1>' });
    const { uploadId, putUrl } = await client.call('startUpload', {
      params: { projectId: project.id },
      body: { kind: 'static', sizeBytes: bytes.length },
    });
    expect((await platform.fetch(putUrl, { method: 'PUT', token, body: bytes })).status).toBe(204);
    await client.call('createBuild', {
      params: { projectId: project.id },
      body: {
        uploadId,
        manifest: { kind: 'static', name: 'M', output: 'dist', apps: [{ id: 'web', name: 'Web', path: '/', device: 'laptop' }] },
      },
    });

    const res = await platform.fetch('/ops/metrics', { token: opsToken });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    const text = res.body as string;
    // Route patterns, never raw URLs: no project id reaches a label.
    expect(text).toMatch(
      /http_request_duration_seconds_count\{method="POST",route="\/api\/projects\/:projectId\/builds",status="201"\} [1-9]/,
    );
    expect(text).not.toContain(project.id);
    for (const name of queueNames) expect(text).toContain(`queue_jobs{queue="${name}",state="wait"}`);
    expect(text).toMatch(/queue_job_duration_seconds_count\{queue="archive.unpack",outcome="done"\} [1-9]/);
    expect(text).toMatch(/^unpack_bytes_total [1-9]/m);
    // Defined once for every process: the runner's metrics are there too, at zero here.
    expect(text).toContain('runner_cold_start_seconds_bucket');
  });
});

describe('/readyz and /healthz', () => {
  it('is ready when Postgres, Redis and the object store answer; /healthz stays open', async () => {
    const ready = await platform.fetch('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ ok: true, checks: { postgres: true, redis: true, s3: true, headroom: true } });
    expect((await platform.fetch('/healthz')).status).toBe(200);
  });

  it('is not ready (503) and names the component when one cannot be reached', async () => {
    // A second api whose Redis and object store point at ports where nothing listens.
    const broken = await startPlatform({ env: { REDIS_URL: 'redis://127.0.0.1:1', S3_ENDPOINT: 'http://127.0.0.1:1' } });
    try {
      const ready = await broken.fetch('/readyz');
      expect(ready.status).toBe(503);
      expect(ready.body).toEqual({ ok: false, checks: { postgres: true, redis: false, s3: false, headroom: true } });
      // Liveness does not depend on the components: restarting the api would not bring them back.
      expect((await broken.fetch('/healthz')).status).toBe(200);
    } finally {
      await broken.close();
    }
  });
});
