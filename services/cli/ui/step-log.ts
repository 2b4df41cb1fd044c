import type { CliContext } from '../context.js';

/** The deploy's steps as they pass, one line each on stderr: `scan      project: 12 files, no secrets`. */
export class StepLog {
  private started = performance.now();

  private readonly ctx: CliContext;

  constructor(ctx: CliContext) {
    this.ctx = ctx;
  }

  /** A step that takes a while announces itself; its `done` line follows. */
  begin(label: string, text: string): void {
    this.started = performance.now();
    this.ctx.info(`${label.padEnd(9)} ${text}…`);
  }

  done(label: string, text: string): void {
    this.ctx.info(`${label.padEnd(9)} ${text}`);
  }

  /** Seconds since the last `begin`, for `done` lines: `3.2 s`. */
  elapsed(): string {
    return `${((performance.now() - this.started) / 1000).toFixed(1)} s`;
  }

  note(text: string): void {
    this.ctx.info(`note      ${text}`);
  }
}
