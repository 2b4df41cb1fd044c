import type { Sql } from '../core/infra/db.js';

// Device logins (the CLI's sign-in, RFC 8628 in spirit): the tool holds a device code, kept here
// only as its hash; the person approves the short user code in a browser; the tool's poll then
// redeems it once.

export async function insertDeviceLogin(
  sql: Sql,
  d: { deviceCodeHash: Buffer; userCode: string; userAgent: string | null; minutes: number },
): Promise<void> {
  await sql`
    insert into device_logins (device_code_hash, user_code, user_agent, expires_at)
    values (${d.deviceCodeHash}, ${d.userCode}, ${d.userAgent}, now() + make_interval(mins => ${d.minutes}))`;
}

/** Approves the login with this user code for the person; false when none waits unexpired. */
export async function approveDeviceCode(sql: Sql, userCode: string, personId: string): Promise<boolean> {
  const [row] = await sql`
    update device_logins set approved_by = ${personId}, approved_at = now()
    where user_code = ${userCode} and approved_by is null and expires_at > now()
    returning id`;
  return Boolean(row);
}

/** The unexpired login of this device code: who approved it (if anyone), whether it was redeemed. */
export async function deviceLoginOf(sql: Sql, deviceCodeHash: Buffer) {
  const [row] = await sql<{ approvedBy: string | null; redeemedAt: Date | null; userAgent: string | null }[]>`
    select approved_by, redeemed_at, user_agent from device_logins
    where device_code_hash = ${deviceCodeHash} and expires_at > now()`;
  return row ?? null;
}

/** Marks the login redeemed; the update is the lock: of two racing polls only one gets true. */
export async function redeemDeviceCode(sql: Sql, deviceCodeHash: Buffer): Promise<boolean> {
  const [won] = await sql`
    update device_logins set redeemed_at = now()
    where device_code_hash = ${deviceCodeHash} and redeemed_at is null returning id`;
  return Boolean(won);
}

/** Device codes expired over a day ago; the number removed. */
export async function deleteExpiredDeviceLogins(sql: Sql): Promise<number> {
  const gone = await sql`delete from device_logins where expires_at < now() - interval '1 day'`;
  return gone.count;
}
