/** Rows as aligned columns with a header: plain text that reads in a terminal and greps well. */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]?.length ?? 0)));
  const line = (cells: string[]) => cells.map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column]))).join('  ').trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}

/** An ISO time as `2026-11-21 09:12` (UTC), or `-` for none. */
export function shortTime(iso: string | null | undefined): string {
  return iso ? `${iso.slice(0, 10)} ${iso.slice(11, 16)}` : '-';
}

/** Bytes as a person reads them: 1.2 MB, 830 kB, 12 B (decimal units, as upload speeds are quoted). */
export function bytes(n: number): string {
  if (n >= 1e9) return `${(n / 1e9).toFixed(2)} GB`;
  if (n >= 1e6) return `${(n / 1e6).toFixed(1)} MB`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(0)} kB`;
  return `${n} B`;
}
