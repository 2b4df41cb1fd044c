// Why a copy's start ended other than by failing to start: its abort reasons (copy-starter.ts
// classifies them), raised by whoever stops the copy or sees its container die.

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
