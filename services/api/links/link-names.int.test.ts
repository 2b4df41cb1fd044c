import { randomUUID } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emitProductEvent } from '../../data/product-events.sql.js';
import { startPlatform, type Platform } from '../../../test/support/platform.js';
import { uniqueSlug } from '../../../test/support/refusal.js';
import { fanOut } from '../../../workers/events-fanout/fanout.js';
import { alertsConsumer } from '../../../workers/alerts-digest/alerts.consumer.js';

// Issue 45: a name typed with CR/LF is stored on one line, and no mail header the platform writes
// can be split by one. The mails are the real alert mails, written by the local outbox (no
// SMTP_URL), read back from its files.

let platform: Platform;
beforeAll(async () => {
  platform = await startPlatform();
});
afterAll(async () => {
  await platform?.close();
});

const controls = /[\u0000-\u001F\u007F-\u009F]/;

/** The header lines of every mail the outbox wrote to `email` (each file's lines before the first blank one). */
async function mailedHeaders(email: string): Promise<string[][]> {
  const dir = join(platform.deps.config.DATA_DIR, 'outbox');
  const mine = (await readdir(dir)).filter((f) => f.endsWith('.txt') && f.includes(email.replace(/[^a-z0-9@.-]/gi, '_')));
  return Promise.all(mine.map(async (f) => (await readFile(join(dir, f), 'utf8')).split('\n\n')[0].split('\n')));
}

describe('names and mail headers', () => {
  it('store a CR/LF name on one line, and a CR/LF name reaching a mail adds no header', async () => {
    const me = await platform.person({ plan: 'pro' });
    const project = await me.client.call('createProject', { body: { slug: uniqueSlug('nm'), name: 'Deals\r\nX-Evil: 1' } });
    expect(project.name).toBe('DealsX-Evil: 1');
    const { link } = await me.client.call('createLink', {
      params: { projectId: project.id },
      body: { viewerName: 'x\r\nBcc: evil@x', viewerCompany: 'Acme\u0085\tCo\u007F' },
    });
    expect(link.viewerName).toBe('xBcc: evil@x');
    expect(link.viewerCompany).toBe('AcmeCo');
    const [stored] = await platform.deps.sql<{ viewerName: string; viewerCompany: string }[]>`
      select viewer_name, viewer_company from links where id = ${link.id}`;
    expect(stored.viewerName).not.toMatch(controls);
    expect(stored.viewerCompany).not.toMatch(controls);
    const changed = await me.client.call('updateLink', { params: { linkId: link.id }, body: { viewerCompany: 'New\r\nCo' } });
    expect(changed.viewerCompany).toBe('NewCo');

    // Alert mails: one with the stored name, one with a raw CR/LF name (as a row from before this
    // fix still holds), non-ASCII too, so the subject is RFC 2047-encoded.
    const other = (await me.client.call('createLink', { params: { projectId: project.id }, body: { viewerName: 'Zoë' } })).link;
    const workspaceId = (await me.client.call('whoami')).workspace.id;
    for (const [linkId, viewerName] of [
      [link.id, link.viewerName],
      [other.id, 'Zoë\r\nBcc: evil@x'],
    ]) {
      await emitProductEvent(platform.deps.sql, {
        workspaceId,
        projectId: project.id,
        linkId,
        kind: 'link.opened',
        viewerName,
        data: { visitId: randomUUID() },
      });
    }
    await fanOut(platform.deps, { consumers: [alertsConsumer], workspaceIds: [workspaceId] });

    const mails = await mailedHeaders(me.email);
    expect(mails).toHaveLength(2);
    for (const head of mails) {
      expect(head.map((line) => line.split(':')[0])).toEqual(['To', 'From', 'Subject']);
      for (const line of head) expect(line).not.toMatch(controls);
    }
    const subjects = mails.map((head) => head[2].slice('Subject: '.length));
    expect(subjects.some((s) => s.startsWith('DealsX-Evil: 1: ') && s.includes('xBcc: evil@x'))).toBe(true);
    const encoded = subjects.find((s) => s.startsWith('=?UTF-8?B?'));
    expect(encoded).toBeDefined();
    const decoded = encoded!
      .split(' ')
      .map((w) => Buffer.from(w.replace(/^=\?UTF-8\?B\?|\?=$/g, ''), 'base64').toString('utf8'))
      .join('');
    expect(decoded).toContain('Zoë Bcc: evil@x');
  });
});
