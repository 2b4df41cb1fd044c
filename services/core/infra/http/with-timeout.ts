/**
 * Settles with `work`, or rejects once `ms` have passed. The clients under it (ioredis with
 * maxRetriesPerRequest null, postgres waiting for a connection) queue requests while their server
 * is down instead of failing, so a health check or a scrape needs a deadline of its own.
 */
export async function withTimeout<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
    work.catch(() => {}); // a failure after the deadline has nobody left to tell
  }
}
