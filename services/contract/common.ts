import { z } from 'zod';

// Building blocks shared by every resource of spec section 2.

/** Ids are opaque strings (UUIDs today); clients must not rely on their shape. */
export const Id = z.string().min(1);
/** ISO 8601 in UTC with milliseconds, e.g. 2026-11-21T09:12:01.000Z. */
export const DateTime = z.iso.datetime({ offset: false });
export const Email = z.email();
export const Uri = z.url();
/** A nested object whose fields the spec does not show: any JSON object. */
export const Obj = z.record(z.string(), z.unknown());
export const Colour = z.string().regex(/^#[0-9a-fA-F]{6}$/, 'must be #rrggbb');
export const Device = z.enum(['phone', 'tablet', 'laptop', 'screen', 'none']);
export const PlanName = z.enum(['free', 'pro', 'team', 'organisation', 'solo', 'studio', 'agency', 'enterprise']);
/**
 * The builder's session cookie. `__Host-`: browsers take it only Secure, for `/`, without a
 * Domain, from the platform's own host, so no content origin (a build's script or a copy's
 * Set-Cookie) can plant one for the platform (cookie tossing). Browsers allow Secure cookies on
 * http://localhost and 127.0.0.1, so the local http set-up keeps working.
 */
export const SESSION_COOKIE = '__Host-pp_session';
/** A UTC day in analytics paths. */
export const Day = z.string();
