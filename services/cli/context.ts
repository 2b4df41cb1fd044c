import { ApiError, createClient, type Client } from '@demo-rooms/contract';
import { platformRequest } from './config/platform-request.js';
import { findToken, type FoundToken } from './config/token.js';
import { apiRefusal, Refusal } from './refusal.js';
import { userAgent } from './version.js';
import { Lines, type GlobalOptions } from './lines.js';

/**
 * What a command needs from its surroundings: its lines and the platform's address (Lines), the
 * token, and the platform's client.
 */
export class CliContext extends Lines {
  private readonly tokenFlag?: string;

  constructor(options: GlobalOptions, env: NodeJS.ProcessEnv = process.env) {
    super(options, env);
    this.tokenFlag = options.token;
  }

  /** A client that sends no token: for device login. */
  anonymous(): Client {
    return createClient({ baseUrl: this.apiUrl, headers: { 'user-agent': userAgent }, fetch: platformRequest });
  }

  /** A client signed in with the given token (just issued by device login). */
  withToken(token: string): Client {
    return createClient({ baseUrl: this.apiUrl, token, headers: { 'user-agent': userAgent }, fetch: platformRequest });
  }

  async token(): Promise<FoundToken | null> {
    return findToken(this.apiUrl, this.tokenFlag, this.env);
  }

  /** A signed-in client, or a refusal that says how to sign in. */
  async signedIn(): Promise<{ client: Client; token: FoundToken }> {
    const token = await this.token();
    if (!token) throw new Refusal(`not signed in to ${this.apiUrl}`, 'run `pitch login`, or give a token with PP_TOKEN or --token');
    return { client: this.withToken(token.token), token };
  }
}

/** Runs one call of the platform; a refusal becomes a Refusal that says what was being done. */
export async function ask<T>(doing: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof ApiError) throw apiRefusal(doing, err);
    throw err;
  }
}
