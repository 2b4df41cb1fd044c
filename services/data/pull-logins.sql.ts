import type { Db } from '../core/infra/db.js';

// A workspace's pull logins (services/core/infra/registry/registry-pull.ts; migration 00037): the token
// endpoint honours one only while its workspace stands (not suspended, not deleted) and it was
// issued after the workspace's last revocation.

/** Whether a pull login of the workspace issued at `issuedAt` is honoured now. */
export async function pullLoginHonoured(db: Db, workspaceId: string, issuedAt: Date): Promise<boolean> {
  const [row] = await db<{ ok: boolean }[]>`
    select suspended_at is null and deleted_at is null
      and (pull_logins_revoked_at is null or pull_logins_revoked_at <= ${issuedAt}) as ok
    from workspaces where id = ${workspaceId}`;
  return row?.ok ?? false;
}

/**
 * Revokes every pull login of the workspace issued so far (a leaked pull secret): `npm run ops --
 * revoke-pull-logins <workspace>`. A login names its issue time in whole seconds, so the moment
 * is rounded up: one issued in this second is revoked too.
 */
export async function revokePullLogins(db: Db, workspaceId: string): Promise<boolean> {
  const rows = await db`
    update workspaces set pull_logins_revoked_at = date_trunc('second', now()) + interval '1 second'
    where id = ${workspaceId} returning id`;
  return rows.length === 1;
}
