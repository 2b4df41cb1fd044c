import { ApiError } from '@demo-rooms/contract';

/** The status and body a typed-client call was refused with; fails the test if it succeeded. */
export async function refusal(call: Promise<unknown>): Promise<{ status: number; body: ApiError['body'] }> {
  try {
    await call;
  } catch (err) {
    if (err instanceof ApiError) return { status: err.status, body: err.body };
    throw err;
  }
  throw new Error('expected a refusal');
}

/** A fresh slug with a readable prefix, unique across parallel test files. */
export const uniqueSlug = (prefix: string) => `${prefix}-${crypto.randomUUID().slice(0, 12)}`;
