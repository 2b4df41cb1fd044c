import { describe, expect, it } from 'vitest';
import { personalHeaders } from '../personal.js';
import { copyTokens, personalClaims } from './copy-token.js';

// The copy token's viewer claims (vn, vc): what the data plane turns back into a personalised
// copy's X-Demo-Viewer-* headers (runner/dataplane/dataplane.int.test.ts sends them through HAProxy).

const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8'));
const viewer = { viewerName: 'Zoë Ünal 日本', viewerCompany: 'Société Générale' };

describe('personalClaims', () => {
  it("carries the headers the room's proxy would send, percent-encoded, and nothing for a build that did not opt in", () => {
    expect(personalClaims(personalHeaders(viewer, { personalise: true }))).toEqual({
      vn: 'Zo%C3%AB%20%C3%9Cnal%20%E6%97%A5%E6%9C%AC',
      vc: 'Soci%C3%A9t%C3%A9%20G%C3%A9n%C3%A9rale',
    });
    expect(personalClaims(personalHeaders(viewer, {}))).toEqual({});
    expect(personalClaims(personalHeaders({ viewerName: 'Ada', viewerCompany: null }, { personalise: true }))).toEqual({ vn: 'Ada' });
  });

  it('fits the longest stored name, and leaves out anything longer', () => {
    const longest = '日'.repeat(80);
    expect(personalClaims(personalHeaders({ viewerName: longest, viewerCompany: null }, { personalise: true })).vn).toHaveLength(720);
    expect(personalClaims(personalHeaders({ viewerName: `${longest}a`, viewerCompany: null }, { personalise: true }))).toEqual({});
  });

  it('goes into the signed token beside the copy claims; a token without them has none', () => {
    const tokens = copyTokens('ab'.repeat(32));
    const base = { lbl: 'v0123456789ab', sid: 's', cid: 'c' };
    expect(claimsOf(tokens.sign({ ...base, ...personalClaims({ 'x-demo-viewer-name': 'Ada' }) }))).toMatchObject({ ...base, vn: 'Ada' });
    expect(Object.keys(claimsOf(tokens.sign({ ...base, ...personalClaims({}) })))).toEqual(['lbl', 'sid', 'cid', 'iat', 'exp']);
  });
});
