import type { IncomingHttpHeaders } from 'node:http';
import { describe, expect, it } from 'vitest';
import { enforceRoomHeaders } from './copy-response-headers.js';

const room = { frameAncestors: 'http://127.0.0.1:8080', reservedCookies: ['pp_view'] };
const enforced = (headers: IncomingHttpHeaders) => (enforceRoomHeaders(headers, room), headers);

describe('enforceRoomHeaders', () => {
  it("sets the room's frame-ancestors whatever the copy says, keeping the copy's other directives", () => {
    const h = enforced({
      'x-frame-options': 'ALLOWALL',
      'content-security-policy': "default-src 'self'; frame-ancestors *, frame-ancestors https://evil.example",
    });
    expect(h['x-frame-options']).toBeUndefined();
    expect(h['x-content-type-options']).toBe('nosniff');
    expect(enforced({ 'x-content-type-options': 'sniff-away' })['x-content-type-options']).toBe('nosniff');
    expect(h['content-security-policy']).toEqual(["default-src 'self'", 'frame-ancestors http://127.0.0.1:8080']);
    expect(enforced({})['content-security-policy']).toEqual(['frame-ancestors http://127.0.0.1:8080']);
  });

  it("makes cookies host-only and drops the room's own cookie names", () => {
    const h = enforced({ 'set-cookie': ['a=1; Domain=rooms.localhost; Path=/', 'b=2;domain=.localhost', 'pp_view=forged; Path=/'] });
    expect(h['set-cookie']).toEqual(['a=1; Path=/', 'b=2']);
    expect(enforced({ 'set-cookie': ['pp_view=x'] })['set-cookie']).toBeUndefined();
  });

  it("keeps only the parts of Clear-Site-Data that act on the copy's own origin", () => {
    expect(enforced({ 'clear-site-data': '"cookies", "cache", "storage"' })['clear-site-data']).toBe('"cache", "storage"');
    expect(enforced({ 'clear-site-data': '"*"' })['clear-site-data']).toBeUndefined();
  });
});
