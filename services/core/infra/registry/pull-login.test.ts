import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { pullLoginOf, pulledForSubject, PULL_LOGIN_SECONDS, workspacePullLogin } from './registry-pull.js';
import { registryTokenKey, signRegistryToken, verifyRegistryToken } from './registry-token.js';

// A workspace's pull login is recognised only when this key signed it for a workspace, in its lifetime.

const pullLoginWorkspace = (k: ReturnType<typeof key>, password: string) => pullLoginOf(k, password)?.workspaceId ?? null;
const key = () =>
  registryTokenKey(generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string);

describe("a workspace's pull login", () => {
  it('names its workspace, grants nothing itself, and lasts a day', () => {
    const k = key();
    const workspaceId = randomUUID();
    const now = new Date();
    const login = workspacePullLogin(k, workspaceId, now);
    expect(pullLoginWorkspace(k, login.password)).toBe(workspaceId);
    expect(pullLoginOf(k, login.password)?.issuedAt.getTime()).toBe(Math.floor(now.getTime() / 1000) * 1000);
    // Not for the registry's audience: the registry honours no login.
    expect(verifyRegistryToken(k, login.password)).toBeNull();
    // Its expiry is the token's own (whole seconds).
    expect(login.expiresAt.getTime()).toBe((Math.floor(now.getTime() / 1000) + PULL_LOGIN_SECONDS) * 1000);
  });

  it('is refused from another key, expired, altered, or when it is a token of a person', () => {
    const k = key();
    const workspaceId = randomUUID();
    expect(pullLoginWorkspace(key(), workspacePullLogin(k, workspaceId).password)).toBeNull();
    const old = workspacePullLogin(k, workspaceId, new Date(Date.now() - (PULL_LOGIN_SECONDS + 60) * 1000));
    expect(pullLoginWorkspace(k, old.password)).toBeNull();
    const login = workspacePullLogin(k, workspaceId).password;
    const [h, , s] = login.split('.');
    const forged = Buffer.from(JSON.stringify({ sub: `workspace-pull:${randomUUID()}` })).toString('base64url');
    expect(pullLoginWorkspace(k, `${h}.${forged}.${s}`)).toBeNull();
    const person = signRegistryToken(k, { subject: randomUUID(), access: [], ttlSeconds: 60 }).token;
    expect(pullLoginWorkspace(k, person)).toBeNull();
    expect(pullLoginWorkspace(k, 'an-api-token')).toBeNull();
  });

  it('is never a registry token: one with the same subject for the registry is no login (issue 45, M1)', () => {
    const k = key();
    const workspaceId = randomUUID();
    const sameSubject = signRegistryToken(k, { subject: `workspace-pull:${workspaceId}`, access: [], ttlSeconds: 900 }).token;
    expect(pullLoginWorkspace(k, sameSubject)).toBeNull();
    const traded = signRegistryToken(k, { subject: pulledForSubject(workspaceId), access: [], ttlSeconds: 900 }).token;
    expect(pullLoginWorkspace(k, traded)).toBeNull();
  });
});
