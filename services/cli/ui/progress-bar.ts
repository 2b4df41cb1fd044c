import { bytes } from './table.js';

const WIDTH = 24;

/**
 * Progress of long work in bytes, on stderr: a bar redrawn in place (at most 10 times a second) at
 * a terminal; elsewhere (CI logs, pipes) a line at each quarter, so a log stays short.
 */
export class ProgressBar {
  private done = 0;
  private readonly started = performance.now();
  private lastDraw = 0;
  private lastQuarter = 0;

  private readonly label: string;
  private readonly total: number;
  private readonly out: NodeJS.WriteStream;

  constructor(label: string, total: number, out: NodeJS.WriteStream = process.stderr) {
    this.label = label;
    this.total = total;
    this.out = out;
  }

  private line(): string {
    const seconds = Math.max((performance.now() - this.started) / 1000, 0.001);
    const share = this.total === 0 ? 1 : this.done / this.total;
    const filled = Math.round(share * WIDTH);
    const bar = `[${'#'.repeat(filled)}${'-'.repeat(WIDTH - filled)}]`;
    return `${this.label.padEnd(9)} ${bar} ${bytes(this.done)} / ${bytes(this.total)}  ${bytes(this.done / seconds)}/s`;
  }

  add(count: number): void {
    this.done += count;
    if (this.out.isTTY) {
      const now = performance.now();
      if (now - this.lastDraw < 100) return;
      this.lastDraw = now;
      this.out.write(`\r${this.line()}\x1b[K`);
      return;
    }
    const quarter = Math.floor((this.done / Math.max(this.total, 1)) * 4);
    if (quarter > this.lastQuarter && quarter < 4) {
      this.lastQuarter = quarter;
      this.out.write(`${this.line()}\n`);
    }
  }

  /** A line of its own above the bar (a part sent, a retry), the bar drawn again under it. */
  note(text: string): void {
    if (!this.out.isTTY) return void this.out.write(`${text}\n`);
    this.out.write(`\r\x1b[K${text}\n${this.line()}\x1b[K`);
  }

  finish(): void {
    this.out.write(this.out.isTTY ? `\r${this.line()}\x1b[K\n` : `${this.line()}\n`);
  }
}
