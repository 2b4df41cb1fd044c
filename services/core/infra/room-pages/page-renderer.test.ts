import { afterAll, describe, expect, it } from 'vitest';
import { Refusal } from '../../rules/errors.js';
import {
  closePageRenderer,
  RENDER_QUEUE_CHARS_MAX,
  RENDER_QUEUE_PER_CLIENT,
  RENDER_RETRY_SECONDS,
  renderStoredPage,
} from './page-renderer.js';

// The renderer's pool: pages render in a worker thread, and what may wait behind it is bounded.

afterAll(() => closePageRenderer());

describe('renderStoredPage', () => {
  it('renders and sanitises in its thread, with the hash of what it made', async () => {
    const page = await renderStoredPage('markdown', '# Hi\n\n<script>x()</script><a href="javascript:alert(1)" onclick="x()">a</a>');
    expect(page.html).toContain('<h1>Hi</h1>');
    expect(page.html).not.toMatch(/script|onclick/);
    expect(page.hash).toMatch(/^[\w-]{43}$/);
  });

  it('refuses with 503 unavailable and Retry-After once the characters waiting pass the bound, and renders the rest', async () => {
    // Each page is a sixth of the bound, each from a client of its own (one client's line is
    // shorter): all asked for in one turn, the first six find room.
    const size = Math.floor(RENDER_QUEUE_CHARS_MAX / 6);
    const page = 'word '.repeat(size / 5);
    const answers = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => renderStoredPage('html', page, `client-${i}`)));
    const refusals = answers.filter((a) => a.status === 'rejected').map((a) => (a as PromiseRejectedResult).reason);
    expect(answers.filter((a) => a.status === 'fulfilled')).toHaveLength(6);
    expect(refusals).toHaveLength(4);
    for (const r of refusals) {
      expect(r).toBeInstanceOf(Refusal);
      expect({ status: r.status, body: r.body() }).toEqual({
        status: 503,
        body: { error: 'unavailable', reason: 'unavailable', detail: expect.any(String), retryAfter: RENDER_RETRY_SECONDS },
      });
    }
    // Drained: a page is taken again.
    expect((await renderStoredPage('html', '<p>after</p>')).html).toBe('<p>after</p>');
  });

  it('is fair between clients: one saving pages back to back holds the thread for one page, and another is next (L6)', async () => {
    const large = `<p>${'word '.repeat(200_000)}</p>`;
    const done: string[] = [];
    const flood = Array.from({ length: 20 }, () =>
      renderStoredPage('html', large, 'workspace-a').then(
        () => done.push('a'),
        (err: unknown) => err as Refusal,
      ),
    );
    const other = renderStoredPage('markdown', '# Welcome', 'workspace-b').then(() => done.push('b'));
    const answers = await Promise.all(flood);
    await other;
    const refused = answers.filter((r): r is Refusal => r instanceof Refusal);
    // One rendering, RENDER_QUEUE_PER_CLIENT waiting; the rest are told to come back.
    expect(refused).toHaveLength(20 - 1 - RENDER_QUEUE_PER_CLIENT);
    for (const r of refused) expect(r.status).toBe(503);
    // The other workspace's page was rendered right after the flooder's first.
    expect(done.slice(0, 2)).toEqual(['a', 'b']);
  }, 60_000);
});
