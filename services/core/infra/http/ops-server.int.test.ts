import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.js';
import { createSql } from '../db.js';
import { createLogger } from '../log.js';
import { createQueues } from '../queues.js';
import { createStorage } from '../storage.js';
import { testEnv } from '../../../../test/support/services.js';
import { issueToken } from '../../../ops/ops.service.js';
import { buildOpsServer } from './ops-server.js';
import { platformChecks } from './readiness.js';

// The workers' own listener, built as workers/main.ts builds it, against the real services.

const config = loadConfig({ ...testEnv(), QUEUE_PREFIX: `t-${crypto.randomUUID().slice(0, 8)}` });
const sql = createSql(config.DATABASE_URL, { max: 2 });
const storage = createStorage(config);
const queues = createQueues(config);
let base = '';
let close = async () => {};

beforeAll(async () => {
  const log = createLogger({ name: 'ops-server-test', level: 'silent' });
  const app = await buildOpsServer({
    log,
    service: 'demo-rooms-workers',
    token: config.OPS_TOKEN,
    queues,
    ready: platformChecks({ sql, storage, queues }),
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  close = () => app.close();
});
afterAll(async () => {
  await close();
  await queues.close();
  await sql.end({ timeout: 2 });
});

const get = (path: string, headers: Record<string, string> = {}) => fetch(base + path, { headers });

describe("the workers' listener", () => {
  it('answers /healthz and /readyz without a credential', async () => {
    expect(await (await get('/healthz')).json()).toEqual({ ok: true, service: 'demo-rooms-workers' });
    const ready = await get('/readyz');
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ ok: true, checks: { postgres: true, redis: true, s3: true } });
  });

  it("serves /ops/metrics to the operator's token only", async () => {
    const { token } = await issueToken(sql, `b-${crypto.randomUUID()}@example.com`, {});
    expect((await get('/ops/metrics')).status).toBe(401);
    const builder = await get('/ops/metrics', { authorization: `Bearer ${token}` });
    expect(builder.status).toBe(403);
    expect(await builder.json()).toEqual({ error: 'role cannot', reason: 'permission', action: 'ops' });
    const operator = await get('/ops/metrics', { authorization: `Bearer ${config.OPS_TOKEN}` });
    expect(operator.status).toBe(200);
    const text = await operator.text();
    expect(text).toContain('queue_job_duration_seconds');
    expect(text).toContain('queue_jobs{queue="leftovers.sweep",state="wait"}');
    expect(text).toMatch(/http_request_duration_seconds_count\{method="GET",route="\/readyz",status="200"\} [1-9]/);
  });
});
