import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlatform, type Platform } from '../../../test/support/platform.js';
import { uniqueSlug } from '../../../test/support/refusal.js';
import { waitFor } from '../../../test/support/wait-for.js';
import { suggestionsADay, suggestionsAtOnce } from './suggest-wording-limits.js';

// Security review 3, L1: each suggestWording is a paid model request that can hold a connection
// for 20 s. A workspace gets a daily allowance (429 past it, as product feedback), and one api
// process waits on a few drafts at once (503 with Retry-After beyond). The model is a stand-in
// for an OpenAI-compatible API on loopback, which answers only when the test lets it.

let platform: Platform;
let asked = 0;
let holding = false;
const held: ServerResponse[] = [];
const answer = (res: ServerResponse) =>
  res.writeHead(200, { 'content-type': 'application/json' }).end(
    JSON.stringify({
      choices: [
        { message: { content: JSON.stringify({ title: 'Acme CRM for small teams', line: 'Every deal, every follow-up, one board.' }) } },
      ],
    }),
  );
const model = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    asked++;
    if (holding) held.push(res);
    else answer(res);
  });
});

beforeAll(async () => {
  await new Promise<void>((resolve) => model.listen(0, '127.0.0.1', resolve));
  const port = (model.address() as AddressInfo).port;
  platform = await startPlatform({ env: { AI_BASE_URL: `http://127.0.0.1:${port}/v1`, AI_API_KEY: 'test-key', AI_MODEL: 'test-model' } });
});
afterAll(async () => {
  await platform?.close();
  model.close();
});

async function project() {
  const person = await platform.person({ plan: 'solo' });
  const made = await person.client.call('createProject', { body: { slug: uniqueSlug('w'), name: 'Wording' } });
  const suggest = () => person.client.call('suggestWording', { params: { projectId: made.id }, body: { title: 'crm', line: 'deals' } });
  return { ...person, project: made, suggest };
}

describe('suggestWording', () => {
  it(`allows a workspace ${suggestionsADay} drafts a day, then answers 429 as product feedback does, without asking the model`, async () => {
    const { token, project: p, suggest } = await project();
    for (let i = 0; i < suggestionsADay; i++) expect((await suggest()).title).toBe('Acme CRM for small teams');
    const before = asked;
    const over = await platform.fetch(`/api/projects/${p.id}/card/suggest`, {
      method: 'POST',
      token,
      json: { title: 'crm', line: 'deals' },
    });
    expect(over).toMatchObject({
      status: 429,
      body: { error: `at most ${suggestionsADay} suggested wordings a day`, reason: 'rate', retryAfter: expect.any(Number) },
    });
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(asked).toBe(before);
    // Another workspace has its own allowance.
    expect((await (await project()).suggest()).line).toBe('Every deal, every follow-up, one board.');
  });

  it(`waits on at most ${suggestionsAtOnce} drafts at once: another meanwhile is 503 with Retry-After at once`, async () => {
    const { token, project: p, suggest } = await project();
    holding = true;
    const before = asked;
    const waiting = Array.from({ length: suggestionsAtOnce }, () => suggest());
    try {
      await waitFor('the model to hold every draft', async () => asked - before === suggestionsAtOnce);
      const busy = await platform.fetch(`/api/projects/${p.id}/card/suggest`, {
        method: 'POST',
        token,
        json: { title: 'crm', line: 'deals' },
      });
      expect(busy).toMatchObject({ status: 503, body: { error: 'unavailable', reason: 'unavailable' } });
      expect(busy.headers.get('retry-after')).toBe('5');
      expect(asked - before).toBe(suggestionsAtOnce);
    } finally {
      holding = false;
      for (const res of held.splice(0)) answer(res);
    }
    expect((await Promise.all(waiting)).map((w) => w.title)).toEqual(Array(suggestionsAtOnce).fill('Acme CRM for small teams'));
    // Room again once they are answered.
    expect((await suggest()).title).toBe('Acme CRM for small teams');
  });
});
