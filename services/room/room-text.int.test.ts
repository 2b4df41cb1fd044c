import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlatform, type Platform } from '../../test/support/platform.js';
import { deployStaticRoom, enterRoom, hit } from '../../test/support/room.js';

// Text a viewer types is stored without control characters or lone surrogates (issue 28, M1):
// Postgres refuses NUL in text and `\u0000` or an unpaired surrogate in jsonb, so one such
// character used to fail its request with a 500 (and, batched, other viewers' too).

let platform: Platform;
beforeAll(async () => {
  platform = await startPlatform({ workers: true });
});
afterAll(async () => {
  await platform.close();
});

/** A raw JSON body, as a script would write it: `\\u0000` and `\\ud800` are JSON's own escapes. */
const raw = (json: string) => ({ body: json, headers: { 'content-type': 'application/json' } });

describe('what a viewer types', () => {
  it('keeps names, emails, comments and answers without NUL, control characters or lone surrogates', async () => {
    const person = await platform.person({ plan: 'solo' });
    const { project } = await deployStaticRoom(platform, person);
    const { url } = await person.client.call('createLink', { params: { projectId: project.id }, body: { viewerName: 'Grace' } });
    const room = await enterRoom(platform, url);
    const post = (path: string, body: string) => hit(platform, `${room.base}/${path}`, { method: 'POST', jar: room.jar, ...raw(body) });

    expect((await post('hello', '{"name":"Ada\\u0000 Lov\\u001belace\\ud800","email":"ada\\u0000@example.com"}')).status).toBe(200);
    const [session] = await platform.deps.sql<{ viewerName: string; viewerEmail: string }[]>`
      select viewer_name, viewer_email from room_sessions where id = ${room.data.sessionId}`;
    expect(session).toEqual({ viewerName: 'Ada Lovelace', viewerEmail: 'ada@example.com' });

    const commented = await post(
      'comments',
      JSON.stringify({
        appId: 'web',
        screen: '/x',
        body: 'Total',
        position: { x: 0.5, y: 0.5 },
        area: null,
        device: 'laptop',
        screenshot: null,
        screenshotNote: 'no-answer',
      })
        .replace('"Total"', '"To\\u0000tal\\udc00 wrong\\nhere"')
        .replace('"/x"', '"/x\\u0000"'),
    );
    expect(commented.status).toBe(200);
    expect(commented.json.comment).toMatchObject({ body: 'Total wrong\nhere', screen: '/x' });

    expect((await post('answer', '{"step":"question","detail":{"text":"Offline\\u0000?\\ud83d"}}')).status).toBe(200);
    const [response] = await person.client.call('listResponses', { params: { projectId: project.id } });
    expect(response.detail).toEqual({ text: 'Offline?' });

    // Nothing but a control character is nothing: refused like an empty name, nothing written.
    const empty = await post('hello', '{"name":"\\u0000\\u0007"}');
    expect(empty.status).toBe(400);
    expect(empty.json).toMatchObject({ error: 'invalid', issues: [{ path: 'name' }] });
  });
});
