import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../api-deps.js';
import { allowance, planLimit, planOf, type PlanName } from '../../core/rules/plans.js';
import { registryTokenKey, repositoryOf, verifyRegistryToken, type RegistryTokenKey } from '../../core/infra/registry/registry-token.js';
import { finishRegistryUpload, releaseRegistryBytes, reserveRegistryBytes } from '../../data/registry-usage.sql.js';
import { planNameOf } from '../../data/workspaces.sql.js';

// The registry gate (issue 45, H1): builders and nodes reach the registry through the api, which
// forwards every request to REGISTRY_URL as it is, except that a push's bytes are reserved against
// the workspace's registry quota (docs/plans.md) before they are forwarded. Distribution 2.8 can
// neither count nor refuse bytes, so this is where the bound holds:
// - a body with a Content-Length that does not fit is refused whole with the plan's 402, before
//   one byte of it reaches the registry;
// - a chunked body (docker's PATCH) reserves a step at a time and is cut, with the 402, at the
//   first step that does not fit: the registry never holds more than the quota.
// Who may push is the registry's question (the token); the gate charges a body only when the
// token it carries grants push on the repository, so nobody can spend another workspace's bytes.
// docs/decisions/registry-and-images.md.

/** A chunked body reserves this many bytes at a time (one Postgres round trip each). */
const RESERVE_STEP = 8 * 1024 * 1024;

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
/** `/v2/<ws>/<project>/…`: the repository, and an upload's id when the path names one. */
const REPOSITORY_PATH = new RegExp(`^/v2/(${UUID})/(${UUID})/(?:blobs/uploads/([A-Za-z0-9-]{1,100})?|manifests/|blobs/)`);

/** Request headers that belong to one hop, or that would let a client choose the registry's idea of its own address. */
const NOT_FORWARDED = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'host', 'forwarded', 'proxy-connection', 'te']);

export function registerRegistryGate(app: FastifyInstance, deps: Deps) {
  const upstream = deps.config.REGISTRY_URL;
  if (!upstream || !deps.config.REGISTRY_TOKEN_KEY_FILE) return;
  const keyFile = deps.config.REGISTRY_TOKEN_KEY_FILE;
  let key: RegistryTokenKey | null = null;
  const signingKey = () => (key ??= registryTokenKey(readFileSync(keyFile, 'utf8')));

  app.register(async (scope) => {
    // Bodies are the registry's: no parser reads them and no body limit applies here (the
    // ingress bounds one request; the quota bounds them all).
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_req, _payload, done) => done(null));
    const handler = (req: FastifyRequest, reply: FastifyReply) => forward(deps, upstream, signingKey(), req, reply);
    for (const url of ['/v2/', '/v2/*'])
      scope.route({ method: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'], url, exposeHeadRoute: false, handler });
  });
}

/** What a push request is charged to: its workspace, its upload (or a key of its own) and the quota. */
interface Charge {
  workspaceId: string;
  upload: string;
  quota: number;
  planName: PlanName;
  /** A manifest PUT's project: a manifest no build of it names is deleted a day later (the sweep). */
  manifestOf: string | null;
}

async function chargeOf(deps: Deps, key: RegistryTokenKey, req: FastifyRequest): Promise<Charge | null> {
  if (!['POST', 'PUT', 'PATCH'].includes(req.method)) return null;
  const path = (req.raw.url ?? '').split('?')[0];
  const m = REPOSITORY_PATH.exec(path);
  if (!m) return null;
  const [, workspaceId, projectId, uploadId] = m;
  const bearer = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
  const claims = bearer ? verifyRegistryToken(key, bearer) : null;
  const repository = repositoryOf(workspaceId, projectId);
  if (!claims?.access.some((a) => a.type === 'repository' && a.name === repository && a.actions.includes('push'))) return null;
  const plan = planOf(await planNameOf(deps.sql, workspaceId));
  const manifest = path.includes('/manifests/');
  return {
    workspaceId,
    // An upload's bytes add up under its id (PATCH after PATCH, then the PUT); a manifest or a
    // one-request upload is a row of its own.
    upload: uploadId ?? `${manifest ? 'manifest' : 'upload'}:${randomUUID()}`,
    quota: allowance('registry', plan),
    planName: plan.name,
    manifestOf: manifest ? projectId : null,
  };
}

async function forward(deps: Deps, upstream: string, key: RegistryTokenKey, req: FastifyRequest, reply: FastifyReply) {
  const declared = req.headers['transfer-encoding'] ? null : Number(req.headers['content-length'] ?? 0);
  const hasBody = declared === null || declared > 0;
  // A POST without a body (an upload opened, a mount) stores no bytes and finishes no upload of
  // ours: its charge (the plan, a database round trip on the way to the registry) is not asked.
  // A PUT without one still is: it finishes an upload its PATCHes charged.
  const charge = hasBody || req.method !== 'POST' ? await chargeOf(deps, key, req) : null;
  // A body is forwarded only to a path the gate knows how to charge: any other spelling the
  // registry might still route (another case, encoded slashes) would pass uncounted.
  if (hasBody && ['POST', 'PUT', 'PATCH'].includes(req.method) && !REPOSITORY_PATH.test((req.raw.url ?? '').split('?')[0]))
    return reply.status(404).header('connection', 'close').send({ error: 'not found' });
  // A declared body that does not fit is refused before any of it is forwarded. The connection
  // stays open and the rest of the body is read and dropped, so the client, still sending, hears
  // the 402 rather than a reset.
  let reserved = 0;
  if (charge && hasBody && declared !== null) {
    if (!(await reserveRegistryBytes(deps.sql, charge.workspaceId, charge.upload, declared, charge.quota, charge.manifestOf))) {
      const full = planLimit('registry', charge.planName);
      req.raw.resume();
      return reply.status(full.status).send(full.body());
    }
    reserved = declared;
  }

  reply.hijack();
  const res = reply.raw;
  const target = new URL(req.raw.url ?? '/', upstream);
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined && !NOT_FORWARDED.has(name) && !name.startsWith('x-forwarded-')) headers[name] = value;
  }
  const upstreamReq = (target.protocol === 'https:' ? httpsRequest : httpRequest)(target, { method: req.method, headers });
  const answered = new Promise<IncomingMessage | null>((resolve) => {
    upstreamReq.on('response', resolve);
    upstreamReq.on('error', () => resolve(null));
    upstreamReq.on('close', () => resolve(null));
  });

  // The body, counted as it passes; once the registry has answered, or the quota is full, the
  // rest is read and dropped (never forwarded), so `sent` is what the registry may hold.
  let sent = 0;
  let cut = false;
  let stopped = false;
  async function* metered(source: AsyncIterable<Buffer>) {
    for await (const chunk of source) {
      if (stopped) continue;
      while (charge && sent + chunk.length > reserved) {
        if (!(await reserveRegistryBytes(deps.sql, charge.workspaceId, charge.upload, RESERVE_STEP, charge.quota, charge.manifestOf))) {
          cut = true;
          stop();
          upstreamReq.destroy();
          break;
        }
        reserved += RESERVE_STEP;
      }
      if (stopped) continue;
      sent += chunk.length;
      yield chunk;
    }
  }
  const body = hasBody ? Readable.from(metered(req.raw)) : null;
  const stop = () => {
    stopped = true;
    body?.unpipe();
    body?.resume();
  };
  if (body) {
    body.on('error', () => upstreamReq.destroy());
    body.pipe(upstreamReq);
  } else upstreamReq.end();

  const answer = await answered;
  stop();
  if (charge) {
    // Bytes reserved but never sent, or sent to a registry that refused them unread, are given
    // back; a blob or manifest the registry stored is counted by its digest from now on.
    const unread = answer && [401, 403, 404].includes(answer.statusCode ?? 0);
    const digest = answer?.headers['docker-content-digest'];
    await releaseRegistryBytes(deps.sql, charge.workspaceId, charge.upload, unread ? reserved : reserved - sent)
      .then(() =>
        answer?.statusCode === 201 && typeof digest === 'string'
          ? finishRegistryUpload(deps.sql, charge.workspaceId, charge.upload, digest)
          : undefined,
      )
      .catch((err) => req.log.error({ err }, 'registry gate: settling a push failed'));
  }
  if (!answer) {
    const refusal = cut
      ? planLimit('registry', charge!.planName)
      : { status: 502, body: () => ({ error: 'unavailable', reason: 'unavailable', detail: 'the registry did not answer' }) };
    res.writeHead(refusal.status, { 'content-type': 'application/json; charset=utf-8' });
    return res.end(JSON.stringify(refusal.body()));
  }
  res.writeHead(answer.statusCode ?? 502, answerHeaders(answer.headers, upstream));
  // A client gone mid-answer (a pull cut short) ends the registry's answer too.
  res.on('close', () => answer.destroy());
  answer.pipe(res);
}

/** The registry's answer headers, its own address in a Location made relative (the client resolves it against the gate). */
function answerHeaders(headers: IncomingHttpHeaders, upstream: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  const origin = new URL(upstream).origin;
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || ['connection', 'keep-alive', 'transfer-encoding'].includes(name)) continue;
    out[name] = name === 'location' && typeof value === 'string' && value.startsWith(origin) ? value.slice(origin.length) : value;
  }
  return out;
}
