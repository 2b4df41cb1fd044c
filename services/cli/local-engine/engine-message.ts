// Apart from local-docker.ts, which loads dockerode (about 0.25 s of this thread): the modules a
// redeploy loads first (the rehearsal's, the in-process image's) need only this, and dockerode
// then loads once the registry's token has come (deploy-flow.ts, containerSide).

/** The engine's error in its own words: dockerode puts the reply body's message in `json`. */
export function engineMessage(err: unknown): string {
  const json = (err as { json?: { message?: string } | null }).json;
  return (json?.message ?? (err as Error).message ?? String(err)).trim();
}
