import { readConfig } from './config-file.js';

export type TokenSource = 'flag' | 'env' | 'file';

export interface FoundToken {
  token: string;
  source: TokenSource;
}

/** The bearer token: --token, then PP_TOKEN (spec 5.3), then the one `pitch login` stored for this platform. */
export async function findToken(
  apiUrl: string,
  flag: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): Promise<FoundToken | null> {
  if (flag) return { token: flag, source: 'flag' };
  if (env.PP_TOKEN) return { token: env.PP_TOKEN, source: 'env' };
  const stored = (await readConfig()).hosts[apiUrl]?.token;
  return stored ? { token: stored, source: 'file' } : null;
}
