import { afterAll, describe, expect, it } from 'vitest';
import { Refusal } from '../errors.js';
import { closePageRenderer, RENDER_QUEUE_CHARS_MAX, RENDER_RETRY_SECONDS, renderStoredPage } from './page-renderer.js';

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
    // Each page is a sixth of the bound: all asked for in one turn, the first seven find room.
    const size = Math.floor(RENDER_QUEUE_CHARS_MAX / 6);
    const page = 'word '.repeat(size / 5);
    const answers = await Promise.allSettled(Array.from({ length: 10 }, () => renderStoredPage('html', page)));
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
});
