import { terminalSafe } from '@demo-rooms/contract/text';
import { plainHttpWarning, resolveApiUrl } from './config/api-url.js';

// What every step of the tool writes (progress, notes, where the time went, the result) and the
// platform's address: the part of a command's context that needs nothing of the contract's route
// table. A container redeploy's head start (deploy-steps/head-start.ts) runs on it before the rest
// of the tool loads; CliContext (context.ts) adds the token and the platform's client.

/** Options every command takes (commander's globals). */
export interface GlobalOptions {
  api?: string;
  token?: string;
  verbose?: boolean;
}

/**
 * Results go to stdout and nothing else does; progress and notes go to stderr. Lines carry others'
 * words (a copy's output, names, the platform's refusals), so they lose terminal controls.
 */
export class Lines {
  readonly apiUrl: string;
  readonly verbose: boolean;

  readonly env: NodeJS.ProcessEnv;

  constructor(
    options: GlobalOptions,
    env: NodeJS.ProcessEnv = process.env,
    /** Whether the plain-HTTP warning is left to another context of the same run (head-start.ts). */
    quiet = false,
  ) {
    this.env = env;
    this.apiUrl = resolveApiUrl(options.api, env);
    const warning = plainHttpWarning(this.apiUrl);
    if (warning && !quiet) this.info(warning);
    this.verbose = options.verbose ?? false;
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
}
