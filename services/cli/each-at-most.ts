/**
 * Runs the jobs in order, at most `limit` at a time. After a failure no further job starts; the
 * ones running end, then the first failure is thrown (nothing is left reading a file the caller
 * is about to delete).
 */
export async function eachAtMost(limit: number, jobs: (() => Promise<void>)[]): Promise<void> {
  let next = 0;
  let failed: { reason: unknown } | null = null;
  const worker = async () => {
    while (!failed && next < jobs.length) {
      const job = jobs[next++]!;
      try {
        await job();
      } catch (reason) {
        failed ??= { reason };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, jobs.length) }, worker));
  if (failed) throw (failed as { reason: unknown }).reason;
}
