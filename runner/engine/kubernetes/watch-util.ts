/** Settles as `work` does, or resolves with undefined once `signal` aborts, whichever comes first. */
export function raceAbort<T>(work: Promise<T>, signal: AbortSignal): Promise<T | undefined> {
  if (signal.aborted) return Promise.resolve(undefined);
  return new Promise<T | undefined>((resolve, reject) => {
    const onAbort = () => resolve(undefined);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

const MESSAGE_CHARS = 200;

/**
 * What a log line may say of a client-node error: its name, its status or errno code, and the start
 * of its message. An `ApiException`'s message carries the reply's body and headers, so it is cut.
 */
export function describeKubeError(err: unknown): { name?: string; code?: string | number; message?: string } {
  if (!(err instanceof Error)) return { message: String(err).slice(0, MESSAGE_CHARS) };
  const e = err as Error & { statusCode?: number; code?: string | number; cause?: { code?: string } };
  return { name: e.name, code: e.statusCode ?? e.code ?? e.cause?.code, message: e.message.slice(0, MESSAGE_CHARS) };
}
