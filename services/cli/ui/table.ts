import { sizeText } from '@demo-rooms/contract/text';

/** Rows as aligned columns with a header: plain text that reads in a terminal and greps well. */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]?.length ?? 0)));
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column])))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}

/** An ISO time as `2026-11-21 09:12` (UTC), or `-` for none. */
export function shortTime(iso: string | null | undefined): string {
  return iso ? `${iso.slice(0, 10)} ${iso.slice(11, 16)}` : '-';
}

/** Bytes as a person reads them, as the web app shows them too (services/contract/sizes.ts). */
export const bytes = sizeText;
