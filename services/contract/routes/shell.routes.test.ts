import { describe, expect, it } from 'vitest';
import { AnswerBody, GrantBody, LeaveBody } from '../resources/room-shell.js';
import { routes } from './route-table.js';
import { shellRoutes } from './shell.routes.js';

// The room shell's rows are a table apart (docs/decisions/room-shell-code.md):
// the api's handler map, its client, its OpenAPI document and the connector's tools
// are built from `routes`, and must not take them.

describe('the room shell rows', () => {
  const rows = Object.entries(shellRoutes);

  it('are the eleven endpoints the shell calls, each a POST under its session', () => {
    expect(rows.map(([, r]) => r.path.replace('/room/:sessionId/', '')).sort()).toEqual([
      'answer',
      'arrive',
      'beat',
      'comments',
      'email',
      'grant',
      'hello',
      'leave',
      'replies',
      'replies-seen',
      'run',
    ]);
    for (const [operation, row] of rows) {
      expect(row.operation).toBe(operation);
      expect(row.method).toBe('POST');
      expect(row.path.startsWith('/room/:sessionId/')).toBe(true);
    }
  });

  it('share no operation and no path with the api table', () => {
    const api = Object.values(routes);
    for (const [operation, row] of rows) {
      expect(Object.keys(routes)).not.toContain(operation);
      expect(api.some((r) => r.path === row.path)).toBe(false);
    }
  });

  it('keep the old answers to bodies that do not fit: grant finds no app, leave drops the beat', () => {
    expect(GrantBody.parse({ app: 'x'.repeat(41) })).toEqual({ app: '' });
    expect(GrantBody.parse('nonsense')).toEqual({ app: '' });
    expect(LeaveBody.parse({ time: 'x' })).toBeNull();
    expect(LeaveBody.parse(undefined)).toBeNull();
  });

  it("checks an answer's detail as its step asks, under detail.", () => {
    const refused = AnswerBody.safeParse({ step: 'question', detail: {} });
    expect(refused.success).toBe(false);
    expect(refused.error?.issues.map((i) => i.path.join('.'))).toEqual(['detail.text']);
    expect(AnswerBody.parse({ step: 'yes' })).toEqual({ step: 'yes', detail: {} });
    expect(AnswerBody.parse({ step: 'colleague', detail: { name: ' Bo\u0000 ', email: 'bo@example.com', extra: 1 } })).toEqual({
      step: 'colleague',
      detail: { name: 'Bo', email: 'bo@example.com' },
    });
  });
});
