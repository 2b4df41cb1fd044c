import { describe, expect, it } from 'vitest';
import { base64Of } from './base64.js';
import { refusedText, screenshotOf, sentText } from './comment-words.js';

describe('what the comment panel says', () => {
  it('thanks the viewer, saying why the comment went without its picture', () => {
    expect(sentText({ recorded: true, comment: { screenshotNote: null } } as never)).toBe('Sent. Thank you.');
    expect(sentText({ recorded: true, comment: { screenshotNote: 'tainted' } } as never)).toBe(
      'Sent without a picture: the app shows images from elsewhere that cannot be copied. Thank you.',
    );
    expect(sentText({ recorded: false, askEmail: false })).toBe('Preview: not recorded.');
  });

  it('says a refusal by its first issue, its detail, its error, or that it did not go', () => {
    expect(refusedText({ issues: [{ path: 'body', message: 'write a comment' }] } as never)).toBe('write a comment');
    expect(refusedText({ detail: 'Too many comments' })).toBe('Too many comments');
    expect(refusedText({ error: 'rate_limited' } as never)).toBe('rate_limited');
    expect(refusedText({})).toBe('Your comment did not go through.');
  });
});

describe('the picture as the comment carries it', () => {
  const encode = async () => 'AAAA';

  it('is the picture in base64 when it fits', async () => {
    const blob = new Blob([new Uint8Array(10)], { type: 'image/png' });
    expect(await screenshotOf({ blob, type: 'image/png' }, 100, encode)).toEqual({
      screenshot: { type: 'image/png', data: 'AAAA' },
      screenshotNote: null,
    });
  });

  it("is too-large over the room's size, and the frame's note without a picture", async () => {
    const blob = new Blob([new Uint8Array(101)], { type: 'image/png' });
    expect(await screenshotOf({ blob, type: 'image/png' }, 100, encode)).toEqual({ screenshot: null, screenshotNote: 'too-large' });
    expect(await screenshotOf({ note: 'no-answer' }, 100, encode)).toEqual({ screenshot: null, screenshotNote: 'no-answer' });
  });

  it('is base64 of its bytes, however many', async () => {
    const bytes = new Uint8Array(100_000).map((_, i) => i % 256);
    const text = atob(await base64Of(new Blob([bytes])));
    expect(text.length).toBe(100_000);
    expect([...text].every((c, i) => c.charCodeAt(0) === i % 256)).toBe(true);
    expect(await base64Of(new Blob(['hi!']))).toBe('aGkh');
  });
});
