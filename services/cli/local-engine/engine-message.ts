// Apart from local-docker.ts: the modules a redeploy loads first (the rehearsal's, the in-process
// image's) need only this, whichever client answers the engine (socket-engine.ts or dockerode).

/** The engine's error in its own words: dockerode puts the reply body's message in `json`. */
export function engineMessage(err: unknown): string {
  const json = (err as { json?: { message?: string } | null }).json;
  return (json?.message ?? (err as Error).message ?? String(err)).trim();
}
