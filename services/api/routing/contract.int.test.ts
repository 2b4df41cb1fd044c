import { Writable } from 'node:stream';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, describe, expect, it } from 'vitest';
import { createClient, ContractError, routes } from '@demo-rooms/contract';
import { startPlatform, type Platform } from '../../../test/support/platform.js';
import { uniqueSlug } from '../../../test/support/refusal.js';
import { handlers } from '../handlers.js';
import type { Handlers } from './handler.js';

const started: Platform[] = [];
afterAll(async () => {
  await Promise.all(started.map((p) => p.close()));
});
async function platformWith(opts: Parameters<typeof startPlatform>[0] = {}) {
  const p = await startPlatform(opts);
  started.push(p);
  return p;
}

describe('requests are checked against the contract', () => {
  it('answers 400 invalid naming each field that does not fit', async () => {
    const platform = await platformWith();
    const res = await platform.fetch('/api/auth/email', { method: 'POST', json: { email: 'not-an-email' } });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid');
    expect(res.body.issues).toEqual([{ path: 'email', message: expect.any(String) }]);

    const missing = await platform.fetch('/api/auth/device/approve', { method: 'POST', token: (await platform.person()).token, json: {} });
    expect(missing.status).toBe(400);
    expect(missing.body.issues.map((i: { path: string }) => i.path)).toEqual(['userCode']);
  });

  it('refuses a string with a NUL character as invalid, naming the field', async () => {
    const platform = await platformWith();
    const p = await platform.person();
    // A name is cleaned of control characters, NUL among them (storable-text.ts nameText); any other string field is refused.
    const res = await platform.fetch('/api/projects', { method: 'POST', token: p.token, json: { slug: 'nul-\u0000test', name: 'Nul' } });
    expect(res.status).toBe(400);
    expect(res.body.issues).toEqual([{ path: 'slug', message: expect.stringContaining('NUL') }]);
    expect(await p.client.call('listProjects')).toEqual([]);
  });

  it('ignores fields an endpoint does not name', async () => {
    const platform = await platformWith();
    const res = await platform.fetch('/api/auth/email', { method: 'POST', json: { email: 'x@example.com', admin: true } });
    expect(res.status).toBe(200);
  });

  it('takes an empty body sent as JSON as no body', async () => {
    const platform = await platformWith();
    const p = await platform.person();
    const res = await platform.fetch('/api/auth/logout', {
      method: 'POST',
      token: p.token,
      headers: { 'content-type': 'application/json' },
      body: '',
    });
    expect(res.status).toBe(200);
  });

  it('takes a POST with no body at all as an empty object: optional fields do their default, required ones are named', async () => {
    const platform = await platformWith();
    const p = await platform.person();
    const read = await platform.fetch('/api/notices/read', { method: 'POST', token: p.token });
    expect([read.status, read.body]).toEqual([200, expect.anything()]);
    const create = await platform.fetch('/api/projects', { method: 'POST', token: p.token });
    expect([create.status, create.body.issues.map((i: { path: string }) => i.path).sort()]).toEqual([400, ['name', 'slug']]);
  });

  it('answers 400 for a body that is not JSON', async () => {
    const platform = await platformWith();
    const res = await platform.fetch('/api/auth/email', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{nope' });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid');
  });
  it('answers 415 for a body in any type but JSON, text/plain too, and changes nothing', async () => {
    const platform = await platformWith();
    const p = await platform.person();
    for (const type of ['text/plain', 'application/xml', 'application/x-www-form-urlencoded']) {
      const res = await platform.fetch('/api/projects', {
        method: 'POST',
        token: p.token,
        headers: { 'content-type': type },
        body: JSON.stringify({ slug: 'typed-body', name: 'Typed' }),
      });
      expect([type, res.status, res.body]).toEqual([type, 415, { error: 'unsupported media type', detail: 'send application/json' }]);
    }
    expect(await p.client.call('listProjects')).toEqual([]);
  });
});

describe('ids in the path', () => {
  it('answers 404 not found for an id that cannot name anything: too long, NUL in it, broken encoding', async () => {
    const platform = await platformWith();
    const p = await platform.person();
    for (const id of ['a'.repeat(101), '%00', 'x%00y', '%E0%A4%A']) {
      const res = await platform.fetch(`/api/projects/${id}`, { token: p.token });
      expect([id, res.status, res.body]).toEqual([id, 404, { error: 'not found' }]);
    }
  });

  it('takes a page of 2,000,000 characters sent JSON-escaped', async () => {
    const platform = await platformWith();
    const p = await platform.person();
    const project = await p.client.call('createProject', { body: { slug: uniqueSlug('escaped'), name: 'Escaped' } });
    const content = '\\u00e9'.repeat(2_000_000);
    const res = await platform.fetch(`/api/projects/${project.id}/pages`, {
      method: 'POST',
      token: p.token,
      headers: { 'content-type': 'application/json' },
      body: `{"title":"Accents","kind":"markdown","content":"${content}"}`,
    });
    expect([res.status, res.body.title]).toEqual([200, 'Accents']);
  });
});

describe('replies are checked against the contract', () => {
  it('logs and answers 500 internal error instead of sending a reply that does not fit', async () => {
    const lines: string[] = [];
    const logTo = new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const platform = await platformWith({
      logTo,
      handlers: { ...handlers, whoami: async () => ({ userId: 42, secretField: 'leak' }) as never },
    });
    const p = await platform.person();
    const res = await platform.fetch('/api/me/account', { token: p.token });
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ error: 'internal error' });
    expect(lines.join('')).toContain('does not fit the contract');
    expect(lines.join('')).not.toContain(p.token);
  });

  it('the typed client refuses a reply that does not fit', async () => {
    const platform = await platformWith();
    const p = await platform.person();
    const fakeFetch: typeof fetch = async () => new Response(JSON.stringify({ userId: 1 }), { status: 200 });
    const client = createClient({ baseUrl: platform.baseUrl, token: p.token, fetch: fakeFetch });
    await expect(client.call('whoami')).rejects.toBeInstanceOf(ContractError);
  });

  it('every row of the route table has its handler, and a map missing one does not compile', () => {
    const { getBilling: _dropped, ...withoutBilling } = handlers;
    // The promise is the compiler's (npm run typecheck): were Handlers partial again, this line
    // would compile and the expect-error would itself be the error.
    // @ts-expect-error getBilling is missing
    const incomplete: Handlers = withoutBilling;
    expect(Object.keys(incomplete)).not.toContain('getBilling');
    expect(Object.keys(routes).filter((operation) => typeof (handlers as Record<string, unknown>)[operation] !== 'function')).toEqual([]);
  });
});

describe('the OpenAPI document', () => {
  it('is served open and validates as OpenAPI 3.1', async () => {
    const platform = await platformWith();
    const res = await platform.fetch('/api/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    const validator = new Validator();
    const result = await validator.validate(res.body);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
    expect(res.body.paths['/api/me/account'].get.operationId).toBe('whoami');
  });
});

describe('logs', () => {
  it('carry a request id and never the token or cookie', async () => {
    const lines: string[] = [];
    const logTo = new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const platform = await platformWith({ logTo });
    const p = await platform.person();
    const res = await platform.fetch('/api/me/account', {
      token: p.token,
      headers: { cookie: '__Host-pp_session=pp_web_secretcookie', 'x-request-id': 'req-abc' },
    });
    expect(res.headers.get('x-request-id')).toBe('req-abc');
    const text = lines.join('');
    expect(text).toContain('req-abc');
    expect(text).not.toContain(p.token);
    expect(text).not.toContain('secretcookie');
  });
});
