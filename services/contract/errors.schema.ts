import { z } from 'zod';

// The refusal bodies of spec section 7. Every refusal has `error` (words a person can read) and
// usually `reason` (for a program); some carry more fields, listed here.

export const Issue = z.object({ path: z.string(), message: z.string() });
export type Issue = z.infer<typeof Issue>;

export const ErrorBody = z.looseObject({
  error: z.string(),
  reason: z.string().optional(),
  /** 400 invalid: each field that does not fit. */
  issues: z.array(Issue).optional(),
  /** 402: the limit reached, the plan, and the cheapest plan allowing more (or null). */
  limit: z.string().optional(),
  plan: z.string().optional(),
  upgrade: z.string().nullable().optional(),
  /** 403: what the role cannot do. */
  action: z.string().optional(),
  /** 403 on account power: `browser` (only the web app may) or `sign-in-again` (a recent sign-in is needed, then retry). */
  stepUp: z.enum(['browser', 'sign-in-again']).optional(),
  /** 400 contrast: each failing pair. */
  problems: z.array(z.unknown()).optional(),
  /** 409/422: which rule, in words. */
  detail: z.string().optional(),
});
export type ErrorBody = z.infer<typeof ErrorBody>;

/** What each refusal status means, for the OpenAPI document. */
export const errorStatusText: Record<number, string> = {
  400: 'invalid: the body does not fit; `issues` lists each field',
  401: 'sign in first',
  402: 'plan limit (`limit`, `plan`, `upgrade`)',
  403: 'role cannot (`reason: permission`, `action`)',
  404: 'not found (foreign ids look the same)',
  409: 'refused: taken',
  411: 'length required',
  422: 'refused on its merits (`reason`)',
  423: 'paused by the platform',
  429: 'too many',
  500: 'internal error',
  503: 'unavailable',
};
