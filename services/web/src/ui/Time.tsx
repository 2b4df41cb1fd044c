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

/** A day as a date ("27 Feb 2027"), for "until …": "until in 3 months" read wrongly (issue 47); the relative time on hover. */
export function Day({ at }: { at: string }) {
  const day = new Date(at).toLocaleDateString('en-GB', { day: 'numeric', month: 'short', year: 'numeric' });
  return (
    <time dateTime={at} title={ago(at)}>
      {day}
    </time>
  );
}

export function duration(seconds: number): string {
  if (seconds < 60) return `${Math.round(seconds)} s`;
  if (seconds < 3600) return `${Math.round(seconds / 60)} min`;
  return `${(seconds / 3600).toFixed(1)} h`;
}
