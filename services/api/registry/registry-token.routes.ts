import { readFileSync } from 'node:fs';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Deps } from '../api-deps.js';
import { allowance, planLimit, planOf } from '../../core/rules/plans.js';
import { pullLoginOf, pulledForSubject } from '../../core/infra/registry/registry-pull.js';
import {
  registryTokenGraceSeconds,
  registryTokenKey,
  signRegistryToken,
  type RegistryTokenKey,
} from '../../core/infra/registry/registry-token.js';
import { isUuid } from '../../core/infra/ids.js';
import { projectById } from '../../data/projects.sql.js';
import { pullLoginHonoured } from '../../data/pull-logins.sql.js';
import { registryPushesClosedAt } from '../../data/registry-gc.sql.js';
import { registryBytesUsed } from '../../data/registry-usage.sql.js';
import { resolveSession } from '../../data/sessions.sql.js';
import { planNameOf } from '../../data/workspaces.sql.js';
import { grantScopes, parseScopes, ScopeRefusal } from './registry-scope.js';

// The registry's token endpoint (Docker token authentication, as `auth.token.realm` names it):
// `GET /v2/token?service=…&scope=repository:<ws>/<project>:push,pull` with the builder's API
// token as the Basic password (what `docker login` and the Docker clients send) or as a Bearer.
// The token grants what registry-scope.ts allows of what was asked; the registry refuses the rest.
// A workspace's pull login (registry-pull.ts; a Kubernetes node pulling a copy's image) is
// taken as the password too, and gets pull on that workspace's repositories only, while the
// workspace stands and its logins were not revoked (issue 45, M1). Push is granted only on a plan
// with container builds, and refused with the plan's 402 once the workspace's registry bytes are
// at its quota (issue 45, H1; the registry gate, registry-gate.routes.ts, holds it mid-push).
export const REGISTRY_TOKEN_PATH = '/v2/token';

export function registerRegistryTokens(app: FastifyInstance, deps: Deps) {
  let key: RegistryTokenKey | null = null;
  const signingKey = () => {
    if (!deps.config.REGISTRY_TOKEN_KEY_FILE) return null;
    key ??= registryTokenKey(readFileSync(deps.config.REGISTRY_TOKEN_KEY_FILE, 'utf8'));
    return key;
  };

  app.get(REGISTRY_TOKEN_PATH, async (req, reply) => {
    const signer = signingKey();
    if (!signer) return reply.status(404).send({ error: 'not found', detail: 'this platform has no image registry' });
    const token = apiTokenOf(req);
    const login = token ? pullLoginOf(signer, token) : null;
    const puller = login && (await pullLoginHonoured(deps.sql, login.workspaceId, login.issuedAt)) ? login.workspaceId : null;
    const session = token && !login ? await resolveSession(deps.sql, token) : null;
    const who = puller
      ? { workspaceId: puller, mayPush: false, subject: pulledForSubject(puller) }
      : session && (session.kind === 'cli' || session.kind === 'web')
        ? { workspaceId: session.workspaceId, mayPush: !session.readOnly, subject: session.personId }
        : null;
    if (!who) {
      return reply
        .status(401)
        .header('www-authenticate', `Basic realm="${deps.config.publicUrl}${REGISTRY_TOKEN_PATH}"`)
        .send({ error: 'sign in first', detail: 'the registry takes your API token as the password (pitch login)' });
    }
    let asked;
    try {
      asked = parseScopes((req.query as { scope?: string | string[] }).scope);
    } catch (err) {
      if (err instanceof ScopeRefusal) return reply.status(400).send({ error: 'invalid', detail: err.message });
      throw err;
    }
    const closed = await pushesClosed(deps, asked);
    if (closed) {
      return reply
        .status(503)
        .header('retry-after', String(closed.retryAfterSeconds))
        .send({
          error: `the registry is collecting unused layers: pushes resume by ${closed.resumeBy} (try again then; pulls go on)`,
          detail: 'pushes pause for a garbage collection at most once a day',
        });
    }
    const plan = planOf(await planNameOf(deps.sql, who.workspaceId));
    // Free (static demos only) pushes nothing: no push is granted, whatever is asked.
    const mayPush = who.mayPush && allowance('containers', plan) > 0;
    if (mayPush && asked.some((scope) => scope.actions.includes('push'))) {
      if ((await registryBytesUsed(deps.sql, who.workspaceId)) >= allowance('registry', plan)) {
        const full = planLimit('registry', plan.name);
        return reply.status(full.status).send(full.body());
      }
    }
    const access = await grantScopes(asked, { workspaceId: who.workspaceId, mayPush }, async (projectId) => {
      if (!isUuid(projectId)) return false;
      const project = await projectById(deps.sql, projectId, { notDeleted: true });
      return project?.workspaceId === who.workspaceId;
    });
    const signed = signRegistryToken(signer, {
      subject: who.subject,
      access,
      ttlSeconds: deps.config.REGISTRY_TOKEN_SECONDS,
    });
    reply.header('cache-control', 'no-store');
    // `registry` is ours, not the protocol's: where `pitch deploy` pushes (the CLI asks here first):
    // the registry gate (registry-gate.routes.ts), never the registry itself.
    return {
      token: signed.token,
      access_token: signed.token,
      expires_in: signed.expiresIn,
      issued_at: signed.issuedAt,
      registry: deps.config.REGISTRY_PUBLIC_URL ?? deps.config.publicUrl,
    };
  });
}

/**
 * While the registry's garbage collection has pushes closed (workers/leftovers-sweep/registry-gc.sweep.ts),
 * a token request that asks to push is refused with when to try again: a push token now could
 * outlive the wait and push into the collection. Pull-only requests are served.
 */
async function pushesClosed(deps: Deps, asked: { actions: string[] }[]) {
  if (!deps.config.REGISTRY_URL || !asked.some((scope) => scope.actions.includes('push'))) return null;
  const closedAt = await registryPushesClosedAt(deps.sql, deps.config.REGISTRY_URL);
  if (!closedAt) return null;
  // The wait, then a collection of a few minutes at most (an estimate for the message only).
  const resume = closedAt.getTime() + (deps.config.REGISTRY_TOKEN_SECONDS + registryTokenGraceSeconds + 300) * 1000;
  const retryAfterSeconds = Math.max(30, Math.ceil((resume - Date.now()) / 1000));
  return { retryAfterSeconds, resumeBy: `${new Date(Date.now() + retryAfterSeconds * 1000).toISOString().slice(11, 16)} UTC` };
}

/** The API token a token request carries: Basic's password (any user name), or a Bearer token. */
function apiTokenOf(req: FastifyRequest): string | null {
  const header = req.headers.authorization ?? '';
  const bearer = /^Bearer\s+(\S+)$/i.exec(header);
  if (bearer) return bearer[1];
  const basic = /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(header);
  if (!basic) return null;
  const decoded = Buffer.from(basic[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon >= 0 && colon < decoded.length - 1 ? decoded.slice(colon + 1) : null;
}
