import { describe, expect, it } from 'vitest';
import { ApiError } from '@demo-rooms/contract/errors';
import { apiRefusal, describeFailure } from './refusal.js';

describe("a platform's refusal as the tool prints it", () => {
  it('names what was being done, the error and reason, and says in words what a role cannot do', () => {
    const refused = apiRefusal('making a link', new ApiError(403, { error: 'role cannot', reason: 'permission', action: 'createLink' }));
    expect(describeFailure(refused, false)).toEqual([
      'pitch: making a link: the platform refused with 403 role cannot (reason: permission)',
      '  your role cannot create link',
    ]);
  });
});
