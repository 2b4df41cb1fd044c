import { describe, expect, it } from 'vitest';
import { HelloBody } from '@demo-rooms/contract';
import { PERSONAL_HEADERS, personalHeaders } from './personal.js';

describe('personalHeaders', () => {
  const viewer = { viewerName: 'Zoë Ünal', viewerCompany: 'A&B "Ltd"\n' };

  it('gives nothing unless the build opted in', () => {
    expect(personalHeaders(viewer, null)).toEqual({});
    expect(personalHeaders(viewer, {})).toEqual({});
    expect(personalHeaders(viewer, { personalise: false })).toEqual({});
    expect(personalHeaders(null, { personalise: true })).toEqual({});
  });

  it('percent-encodes UTF-8, so any text is a valid header value that decodes back', () => {
    const headers = personalHeaders(viewer, { personalise: true });
    expect(headers).toEqual({ 'x-demo-viewer-name': 'Zo%C3%AB%20%C3%9Cnal', 'x-demo-viewer-company': 'A%26B%20%22Ltd%22%0A' });
    for (const value of Object.values(headers)) expect(value).toMatch(/^[\x21-\x7e]+$/);
    expect(decodeURIComponent(headers['x-demo-viewer-company'])).toBe(viewer.viewerCompany);
  });

  it('leaves out what the room does not know', () => {
    expect(personalHeaders({ viewerName: 'Ada', viewerCompany: null }, { personalise: true })).toEqual({ 'x-demo-viewer-name': 'Ada' });
    expect(PERSONAL_HEADERS).toEqual(['x-demo-viewer-name', 'x-demo-viewer-company']);
  });
});

describe("who-are-you's company", () => {
  it('is optional, 1–80 characters once trimmed, without control characters', () => {
    expect(HelloBody.parse({ name: 'Ada' })).toEqual({ name: 'Ada' });
    expect(HelloBody.parse({ name: 'Ada', company: ' Acme\u0000 ' }).company).toBe('Acme');
    expect(HelloBody.safeParse({ name: 'Ada', company: 'x'.repeat(81) }).success).toBe(false);
    expect(HelloBody.safeParse({ name: 'Ada', company: '  ' }).success).toBe(false);
  });
});
