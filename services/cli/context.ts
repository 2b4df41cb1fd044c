import { ApiError, createClient, type Client, terminalSafe } from '@demo-rooms/contract';
import { plainHttpWarning, resolveApiUrl } from './config/api-url.js';
import { platformRequest } from './config/platform-request.js';
import { findToken, type FoundToken } from './config/token.js';
import { apiRefusal, Refusal } from './refusal.js';
import { userAgent } from './version.js';

/** Options every command takes (commander's globals). */
export interface GlobalOptions {
  api?: string;
  token?: string;
  verbose?: boolean;
}

/**
 * What a command needs from its surroundings: the platform's address, the token, and the two
 * streams. Results go to stdout and nothing else does; progress and notes go to stderr. Lines carry
 * others' words (a copy's output, names, the platform's refusals), so they lose terminal controls.
 */
export class CliContext {
  readonly apiUrl: string;
  readonly verbose: boolean;
  private readonly tokenFlag?: string;

  constructor(
    options: GlobalOptions,
    readonly env: NodeJS.ProcessEnv = process.env,
    /** Whether the plain-HTTP warning is left to another context of the same run (head-start.ts). */
    quiet = false,
  ) {
    this.apiUrl = resolveApiUrl(options.api, env);
    const warning = plainHttpWarning(this.apiUrl);
    if (warning && !quiet) this.info(warning);
    this.verbose = options.verbose ?? false;
    this.tokenFlag = options.token;
  }

  /**
   * A line of progress or a note, on stderr. With PITCH_TIMINGS=1 each line starts with the
   * seconds since the process started (`[1.234 s]`), to see where a deploy's time goes.
   */
  info(line: string): void {
    const at = this.env.PITCH_TIMINGS === '1' ? `[${(performance.now() / 1000).toFixed(3)} s] ` : '';
    process.stderr.write(`${at}${terminalSafe(line)}\n`);
  }

  /**
   * With PITCH_TIMINGS=1, a line of where a step's time went (`[1.234 s]   · pulled into the engine`),
   * between its step lines; nothing otherwise.
   */
  trace(line: string): void {
    if (this.env.PITCH_TIMINGS === '1') this.info(`  · ${line}`);
  }

  /** Detail shown only with --verbose. */
  detail(line: string): void {
    if (this.verbose) process.stderr.write(`  ${terminalSafe(line)}\n`);
  }

  /** The command's result, on stdout: what a script reads. */
  result(line: string): void {
    process.stdout.write(`${terminalSafe(line)}\n`);
  }

  json(value: unknown): void {
    process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
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
