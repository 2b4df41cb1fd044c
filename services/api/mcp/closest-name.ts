// The known name an assistant most likely meant when it used an unknown one (`expiresIn` →
// `expiresInDays`): a name that starts with or holds the unknown one, else a short name spelt
// out (`list` → `ls`), else the nearest by edit distance within a third of the name's length.
// No suggestion is better than a wrong one.

/** Levenshtein distance, case-insensitive: the edits that turn `a` into `b`. */
function distance(a: string, b: string): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  let row = Array.from({ length: y.length + 1 }, (_, j) => j);
  for (let i = 1; i <= x.length; i++) {
    const next = [i];
    for (let j = 1; j <= y.length; j++) next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (x[i - 1] === y[j - 1] ? 0 : 1));
    row = next;
  }
  return row[y.length]!;
}

/** `ls` abbreviates `list`: its letters appear in order in the longer word, the first one first. */
function abbreviates(short: string, long: string): boolean {
  if (short.length >= long.length || short[0] !== long[0]) return false;
  let at = 0;
  for (const c of short) {
    at = long.indexOf(c, at) + 1;
    if (!at) return false;
  }
  return true;
}

const words = (name: string) => name.replace(/[-_\s]/g, '').toLowerCase();

export function closestName(unknown: string, known: readonly string[]): string | undefined {
  const u = words(unknown);
  if (!u) return undefined;
  const holding = known.filter((k) => words(k).startsWith(u) || (u.length >= 4 && (words(k).includes(u) || u.includes(words(k)))));
  if (!holding.length) {
    const short = known.filter((k) => abbreviates(words(k), u));
    if (short.length === 1) return short[0];
  }
  const pool = holding.length ? holding : known;
  const ranked = pool.map((k) => ({ k, d: distance(u, words(k)) })).sort((a, b) => a.d - b.d || a.k.length - b.k.length);
  const best = ranked[0];
  if (!best) return undefined;
  return holding.length || best.d <= Math.max(1, Math.floor(u.length / 3)) ? best.k : undefined;
}
