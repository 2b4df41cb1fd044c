import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { grantScopes, MAX_SCOPES, parseScopes, ScopeRefusal } from './registry-scope.js';

const ws = randomUUID();
const other = randomUUID();
const project = randomUUID();

describe('registry token scopes', () => {
  it('grants push and pull on the active workspace’s own project only', async () => {
    const asked = parseScopes([`repository:${ws}/${project}:push,pull`, `repository:${other}/${project}:pull`]);
    const granted = await grantScopes(asked, { workspaceId: ws, mayPush: true }, async (id) => id === project);
    expect(granted).toEqual([{ type: 'repository', name: `${ws}/${project}`, actions: ['push', 'pull'] }]);
  });

  it('grants nothing on a project that is not in the workspace, and pull only to a caller who may not push (read-only, or a plan without containers)', async () => {
    const asked = parseScopes(`repository:${ws}/${project}:push,pull`);
    expect(await grantScopes(asked, { workspaceId: ws, mayPush: true }, async () => false)).toEqual([]);
    expect(await grantScopes(asked, { workspaceId: ws, mayPush: false }, async () => true)).toEqual([
      { type: 'repository', name: `${ws}/${project}`, actions: ['pull'] },
    ]);
  });

  it('drops actions it does not know (delete, *)', () => {
    expect(parseScopes(`repository:${ws}/${project}:pull,delete,*`)[0].actions).toEqual(['pull']);
  });

  it('refuses too many scopes, long ones and other shapes', () => {
    const many = Array.from({ length: MAX_SCOPES + 1 }, () => `repository:${ws}/${project}:pull`);
    expect(() => parseScopes(many)).toThrow(ScopeRefusal);
    expect(() => parseScopes(`repository:${ws}/${project}:${'pull,'.repeat(60)}pull`)).toThrow(ScopeRefusal);
    for (const bad of ['registry:catalog:*', `repository:${ws}/../${project}:pull`, `repository:library/node:pull`]) {
      expect(() => parseScopes(bad), bad).toThrow(ScopeRefusal);
    }
  });
});
