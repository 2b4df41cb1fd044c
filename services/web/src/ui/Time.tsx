// Times as people say them ("3 min ago", "in 2 days"), with the exact time on hover and for
// assistive technology in the <time> element.

const units: [Intl.RelativeTimeFormatUnit, number][] = [
  ['year', 31536e6],
  ['month', 2592e6],
  ['day', 864e5],
  ['hour', 36e5],
  ['minute', 6e4],
];
const relative = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });

export function ago(iso: string, now = Date.now()): string {
  const diff = new Date(iso).getTime() - now;
  for (const [unit, ms] of units) if (Math.abs(diff) >= ms) return relative.format(Math.round(diff / ms), unit);
  return 'just now';
}

export function Time({ at }: { at: string | null | undefined }) {
  if (!at) return <span className="muted">—</span>;
  return (
    <time dateTime={at} title={new Date(at).toLocaleString()}>
      {ago(at)}
    </time>
  );
}

export function duration(seconds: number): string {
  if (seconds < 60) return `${Math.round(seconds)} s`;
  if (seconds < 3600) return `${Math.round(seconds / 60)} min`;
  return `${(seconds / 3600).toFixed(1)} h`;
}
