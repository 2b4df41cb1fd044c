import { describe, expect, it } from 'vitest';
import { closestName } from './closest-name.js';

describe('closestName', () => {
  const link = ['projectId', 'viewerName', 'viewerEmail', 'expiresInDays'];
  it('finds the field an assistant meant', () => {
    expect(closestName('expiresIn', link)).toBe('expiresInDays');
    expect(closestName('expires_in_days', link)).toBe('expiresInDays');
    expect(closestName('viewer_name', link)).toBe('viewerName');
    expect(closestName('viewerEmial', link)).toBe('viewerEmail');
    expect(closestName('projectID', link)).toBe('projectId');
    expect(closestName('email', link)).toBe('viewerEmail');
    expect(closestName('list', ['create', 'ls', 'revoke', 'reveal'])).toBe('ls');
  });
  it('suggests nothing rather than something wrong', () => {
    expect(closestName('colour', link)).toBeUndefined();
    expect(closestName('', link)).toBeUndefined();
    expect(closestName('x', [])).toBeUndefined();
  });
});
