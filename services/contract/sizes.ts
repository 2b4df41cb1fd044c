// Sizes as every client shows them (issue 29: the web app said MB where the command line meant
// another MB). One convention, as the spec writes its own limits ("up to 1 MB" is 1,048,576
// bytes): units of 1,024, spelled KB, MB and GB, one decimal from MB up. Written down in
// docs/decisions/contract-and-wire.md.

const KB = 1024;
const MB = KB * 1024;
const GB = MB * 1024;

/** Bytes as a person reads them: `12 B`, `830 KB`, `1.5 MB`, `2.0 GB`. */
export function sizeText(bytes: number): string {
  const n = Math.max(0, Math.round(bytes));
  if (n >= GB) return `${(n / GB).toFixed(1)} GB`;
  if (n >= MB) return `${(n / MB).toFixed(1)} MB`;
  if (n >= KB) return `${Math.round(n / KB)} KB`;
  return `${n} B`;
}
