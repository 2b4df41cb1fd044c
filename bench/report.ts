// One figure of a bench, for `npm run bench -- --json`: bench/run.ts gives each bench a file in
// BENCH_FIGURES and prints the lines written there, one JSON object per figure. Run alone, a bench
// writes none: its own printed lines are the report.
import { appendFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { basename } from 'node:path';

export interface Figure {
  /** What was measured, stable between runs (the key two runs are compared by). */
  name: string;
  value: number;
  unit: string;
  /** The same measure of the baseline, in the same run, when there is one. */
  baseline?: number | null;
  /** value / baseline, or the bench's own ratio when it compares otherwise. */
  ratio?: number | null;
}

const bench = basename(process.argv[1] ?? '').replace(/\.bench\.ts$/, '');

/** Records a figure (with the one-minute load average at the time) when a JSON report is asked for. */
export function figure(f: Figure): void {
  const file = process.env.BENCH_FIGURES;
  if (!file) return;
  const ratio = f.ratio ?? (f.baseline ? f.value / f.baseline : null);
  const line = {
    bench,
    name: f.name,
    value: round(f.value),
    unit: f.unit,
    baseline: f.baseline == null ? null : round(f.baseline),
    ratio: ratio == null ? null : round(ratio),
    loadavg: round(loadavg()[0]),
  };
  appendFileSync(file, `${JSON.stringify(line)}\n`);
}

const round = (n: number) => Math.round(n * 1000) / 1000;

/**
 * Runs one step of a bench, so that a failure names the step and its cause: "bench step
 * 'entering a copy' failed: …". The bench exits non-zero with that line, not a bare stack.
 */
export async function step<T>(name: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    throw new BenchStepError(name, err);
  }
}

export class BenchStepError extends Error {
  constructor(
    readonly step: string,
    readonly reason: unknown,
  ) {
    super(`bench step "${step}" failed: ${reason instanceof Error ? reason.message : String(reason)}`);
  }
}
