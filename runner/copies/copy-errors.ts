// Why a copy's start was cut short: its abort reasons (copy-starter.ts classifies them), raised by
// whoever stops the copy or sees its container die, or by the start's own deadline.

/** Why a start was abandoned on purpose (not a failure): the viewer left, or the copy was given up. */
export class Withdrawn extends Error {
  constructor(readonly reason: string) {
    super(`withdrawn: ${reason}`);
    this.name = 'Withdrawn';
  }
}

/** The copy's container exited (or was OOM-killed) while it was starting. */
export class CopyExited extends Error {
  constructor(
    readonly exitCode: number | null,
    readonly oom: boolean,
  ) {
    super(oom ? 'the copy ran out of memory' : `the copy exited${exitCode === null ? '' : ` with code ${exitCode}`}`);
    this.name = 'CopyExited';
  }
}

/** The start was not ready within RUNNER_START_DEADLINE_S: `waitingFor` is the phase it was still in. */
export class StartDeadline extends Error {
  constructor(
    readonly ms: number,
    readonly waitingFor: string,
  ) {
    super(`the copy was not ready within ${ms / 1000} s (still waiting for ${waitingFor})`);
    this.name = 'StartDeadline';
  }
}
