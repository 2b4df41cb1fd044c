import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Readable } from 'node:stream';
import type { Config } from '../config.js';
import { PULL_LOGIN_AUDIENCE, registryTokenKey, signRegistryToken, verifyRegistryToken, type RegistryTokenKey } from './registry-token.js';

// The platform's own reads of the registry (the bundle check, the runner's pull): a pull token
// for the one repository, signed with the platform's key, never a builder's token.

export interface Registry {
  url: string;
  key: RegistryTokenKey;
}

/** The registry this process may read, or null when the platform has none (tarball builds only). */
export function registryOf(config: Pick<Config, 'REGISTRY_URL' | 'REGISTRY_TOKEN_KEY_FILE'>): Registry | null {
  if (!config.REGISTRY_URL || !config.REGISTRY_TOKEN_KEY_FILE) return null;
  return { url: config.REGISTRY_URL, key: registryTokenKey(readFileSync(config.REGISTRY_TOKEN_KEY_FILE, 'utf8')) };
}

export const MANIFEST_TYPES = [
  'application/vnd.docker.distribution.manifest.v2+json',
  'application/vnd.oci.image.manifest.v1+json',
] as const;
export const UNCOMPRESSED_LAYER_TYPES = new Set(['application/vnd.docker.image.rootfs.diff.tar', 'application/vnd.oci.image.layer.v1.tar']);

export class RegistryReadError extends Error {}

/** The digest that names these bytes in a registry: `sha256:<hex>`. */
export const contentDigest = (bytes: Buffer): string => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

function pullToken(registry: Registry, repository: string): string {
  return signRegistryToken(registry.key, {
    subject: 'platform',
    access: [{ type: 'repository', name: repository, actions: ['pull'] }],
    ttlSeconds: 300,
  }).token;
}

/** GET of a manifest or blob by digest; the caller reads or streams the body. */
export async function registryGet(registry: Registry, repository: string, path: string, accept?: string): Promise<Response> {
  const res = await fetch(`${registry.url}/v2/${repository}/${path}`, {
    headers: { authorization: `Bearer ${pullToken(registry, repository)}`, ...(accept ? { accept } : {}) },
  });
  if (res.status === 404) throw new RegistryReadError(`the registry has no ${path.split('/')[1]} in ${repository}`);
  if (!res.ok) throw new Error(`the registry answered ${res.status} to GET ${path}`);
  return res;
}

/**
 * The size of a blob as the registry stores it (its HEAD's Content-Length): the bytes behind the
 * digest, whatever a manifest declares (Distribution 2.8 never checks a layer's declared size).
 */
export async function registryBlobSize(registry: Registry, repository: string, digest: string): Promise<number> {
  const res = await fetch(`${registry.url}/v2/${repository}/blobs/${digest}`, {
    method: 'HEAD',
    headers: { authorization: `Bearer ${pullToken(registry, repository)}` },
  });
  if (res.status === 404) throw new RegistryReadError(`the registry has no blob ${digest} in ${repository}`);
  if (!res.ok) throw new Error(`the registry answered ${res.status} to HEAD blobs/${digest}`);
  const size = Number(res.headers.get('content-length'));
  if (!Number.isSafeInteger(size) || size < 0) throw new Error(`the registry gave no size for blobs/${digest}`);
  return size;
}

/** Whether the repository holds the manifest `digest` (a HEAD): a RegistryReadError when it does not. */
export async function registryHasManifest(registry: Registry, repository: string, digest: string): Promise<void> {
  const res = await fetch(`${registry.url}/v2/${repository}/manifests/${digest}`, {
    method: 'HEAD',
    headers: { authorization: `Bearer ${pullToken(registry, repository)}`, accept: MANIFEST_TYPES.join(', ') },
  });
  if (res.status === 404) throw new RegistryReadError(`the registry has no manifests in ${repository}`);
  if (!res.ok) throw new Error(`the registry answered ${res.status} to HEAD manifests/${digest}`);
}

/** The manifest's bytes, at most `maxBytes`, checked against `digest`. */
export async function readManifest(registry: Registry, repository: string, digest: string, maxBytes: number): Promise<Buffer> {
  const res = await registryGet(registry, repository, `manifests/${digest}`, MANIFEST_TYPES.join(', '));
  const bytes = await boundedBody(res, maxBytes, 'the image manifest');
  if (contentDigest(bytes) !== digest) throw new RegistryReadError('the manifest the registry gave is not the one its digest names');
  return bytes;
}

/** A blob's bytes, at most `maxBytes`, checked against `digest` (for the config; layers are streamed). */
export async function readBlob(registry: Registry, repository: string, digest: string, maxBytes: number): Promise<Buffer> {
  const bytes = await boundedBody(await registryGet(registry, repository, `blobs/${digest}`), maxBytes, `the blob ${digest}`);
  if (contentDigest(bytes) !== digest) throw new RegistryReadError(`the blob the registry gave is not ${digest}`);
  return bytes;
}

async function boundedBody(res: Response, maxBytes: number, what: string): Promise<Buffer> {
  const declared = Number(res.headers.get('content-length') ?? 0);
  if (declared > maxBytes) throw new RegistryReadError(`${what} is larger than ${maxBytes} bytes`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res.body as unknown as Readable) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) throw new RegistryReadError(`${what} is larger than ${maxBytes} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** DELETE of a manifest (the platform's own token, with the `delete` action); a 404 is already done. */
export async function registryDelete(registry: Registry, repository: string, path: string): Promise<void> {
  const token = signRegistryToken(registry.key, {
    subject: 'platform',
    access: [{ type: 'repository', name: repository, actions: ['pull', 'delete'] }],
    ttlSeconds: 300,
  }).token;
  const res = await fetch(`${registry.url}/v2/${repository}/${path}`, { method: 'DELETE', headers: { authorization: `Bearer ${token}` } });
  if (res.status !== 202 && res.status !== 404) throw new Error(`the registry answered ${res.status} to DELETE ${path}`);
}

// A workspace's pull login (issue 33): what a Kubernetes node shows the registry to pull that
// workspace's pushed images. A node cannot be handed a registry token (the kubelet's pull secrets
// hold a user name and a password, which the node's runtime sends to the token endpoint), so the
// password is a token the platform signed for the workspace with no access of its own, for the
// pull-login audience (never the registry's): the registry grants it nothing, and the token
// endpoint (services/api/registry) trades it for pull on that workspace's repositories alone.
// Issue 45 (M1): what the endpoint hands out is for the registry's audience, under another
// subject, so it is never a login again; a login ends at its expiry, and the endpoint refuses it
// once its workspace is suspended or deleted, or its logins were revoked (pull-logins.sql.ts).

/** How long a pull login lasts: the runner writes a new one into the pull secret after half of it. */
export const PULL_LOGIN_SECONDS = 24 * 3600;
const PULL_SUBJECT = /^workspace-pull:([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;

/** The subject of the registry tokens a pull login is traded for (not a login's). */
export const pulledForSubject = (workspaceId: string) => `workspace-pull-token:${workspaceId}`;

export function workspacePullLogin(
  key: RegistryTokenKey,
  workspaceId: string,
  now = new Date(),
): { username: string; password: string; expiresAt: Date } {
  const signed = signRegistryToken(key, {
    subject: `workspace-pull:${workspaceId}`,
    access: [],
    ttlSeconds: PULL_LOGIN_SECONDS,
    now,
    audience: PULL_LOGIN_AUDIENCE,
  });
  return {
    username: 'workspace-pull',
    password: signed.token,
    expiresAt: new Date(Date.parse(signed.issuedAt) + PULL_LOGIN_SECONDS * 1000),
  };
}

/**
 * The workspace whose pull login `password` is, and when it was issued; null when it is none (a
 * person's API token, a registry token, expired, another key).
 */
export function pullLoginOf(key: RegistryTokenKey, password: string): { workspaceId: string; issuedAt: Date } | null {
  const claims = verifyRegistryToken(key, password, new Date(), PULL_LOGIN_AUDIENCE);
  const workspaceId = claims ? PULL_SUBJECT.exec(claims.sub)?.[1] : undefined;
  return claims && workspaceId ? { workspaceId, issuedAt: claims.issuedAt } : null;
}
