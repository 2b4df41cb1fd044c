import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes, type RouteDef } from '@demo-rooms/contract';
import { startPlatform, type Platform } from '../../../test/support/platform.js';

// Spec 5.2: without a session every endpoint but the open ones answers 401 "sign in first",
// whatever the body, and before looking at it.
let platform: Platform;
beforeAll(async () => {
  platform = await startPlatform();
});
afterAll(async () => {
  await platform.close();
});

const closed = (Object.values(routes) as RouteDef[]).filter((r) => !r.open);
const fill = (path: string) => path.replace(/:([A-Za-z]+)/g, '00000000-0000-4000-8000-000000000000');

describe('without a session', () => {
  it.each(closed.map((r) => [r.operation, r] as const))('%s answers 401 sign in first', async (_op, r) => {
    const res = await platform.fetch(fill(r.path), { method: r.method, json: r.method === 'GET' ? undefined : { nonsense: 1 } });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'sign in first' });
  });

  it('refuses a made-up bearer token and a made-up cookie the same way', async () => {
    const a = await platform.fetch('/api/me/account', { token: 'pp_cli_nothing' });
    const b = await platform.fetch('/api/me/account', { headers: { cookie: '__Host-pp_session=pp_web_nothing' } });
    expect([a.status, b.status]).toEqual([401, 401]);
    expect(a.body).toEqual({ error: 'sign in first' });
  });

  it('answers the open endpoints', async () => {
    const health = await platform.fetch('/healthz');
    expect(health.status).toBe(200);
    expect(health.body).toEqual({ ok: true, service: expect.any(String) });
    expect((await platform.fetch('/api/openapi.json')).status).toBe(200);
    expect((await platform.fetch('/api/manifest.schema.json')).status).toBe(200);
  });

  it('answers an unknown /api route 404 in JSON', async () => {
    const res = await platform.fetch('/api/no/such/thing');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'not found' });
  });
});
