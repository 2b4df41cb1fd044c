import { repositoryOf, type RegistryAccess } from '../../core/infra/registry/registry-token.js';

// What a registry token may grant (Docker token protocol: the client asks with `scope=` values,
// the server grants what it allows and leaves out the rest, and the registry answers 401/403 to
// anything the token lacks). A workspace's repositories are named `<workspaceId>/<projectId>`:
// a builder's token grants push and pull on its active workspace's projects only, so no token
// ever names another workspace's repository, and a cross-repository mount from one (`from=`,
// which the registry checks as pull on the source) is never authorised.

/** At most this many scopes in one request, each at most this many characters: more is refused. */
export const MAX_SCOPES = 4;
export const MAX_SCOPE_CHARS = 200;

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
const SCOPE = new RegExp(`^repository:(${UUID})/(${UUID}):([a-z*,]{1,40})$`);

export class ScopeRefusal extends Error {}

export interface AskedScope {
  workspaceId: string;
  projectId: string;
  actions: ('pull' | 'push')[];
}

/**
 * The `scope` values of a token request, parsed. A scope of another shape (the catalog, another
 * type, a name that is not two ids) is refused with the reason; unknown actions are dropped.
 */
export function parseScopes(raw: string | string[] | undefined): AskedScope[] {
  const values = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
  // Docker clients send one scope per parameter; some join several with spaces.
  const scopes = values.flatMap((v) => v.split(' ')).filter(Boolean);
  if (scopes.length > MAX_SCOPES) throw new ScopeRefusal(`at most ${MAX_SCOPES} scopes in one token request`);
  return scopes.map((scope) => {
    if (scope.length > MAX_SCOPE_CHARS) throw new ScopeRefusal(`a scope has at most ${MAX_SCOPE_CHARS} characters`);
    const m = SCOPE.exec(scope);
    if (!m) throw new ScopeRefusal(`${JSON.stringify(scope)}: a scope is repository:<workspace id>/<project id>:pull,push`);
    const actions = [...new Set(m[3].split(','))].filter((a): a is 'pull' | 'push' => a === 'pull' || a === 'push');
    return { workspaceId: m[1], projectId: m[2], actions };
  });
}

/**
 * What is granted: the asked actions on repositories of `workspaceId` whose project `exists`
 * there; nothing on any other workspace's. Pull only unless `mayPush` (a session not read-only on
 * a plan with container builds: issue 45, H1).
 */
export async function grantScopes(
  asked: AskedScope[],
  who: { workspaceId: string; mayPush: boolean },
  exists: (projectId: string) => Promise<boolean>,
): Promise<RegistryAccess[]> {
  const granted: RegistryAccess[] = [];
  for (const scope of asked) {
    if (scope.workspaceId !== who.workspaceId || !(await exists(scope.projectId))) continue;
    const actions = scope.actions.filter((a) => a === 'pull' || who.mayPush);
    if (actions.length) granted.push({ type: 'repository', name: repositoryOf(scope.workspaceId, scope.projectId), actions });
  }
  return granted;
}
