import { clampChroma, formatHex, oklch, wcagContrast, wcagLuminance } from 'culori';

// WCAG 2.2 contrast (1.4.3 text, 1.4.11 non-text) and the nearest shade of a colour that passes,
// all maths by culori: no hand-rolled colour conversion. Colours are `#rrggbb`.

/** WCAG 2.2 minimum ratios: 4.5:1 for body text, 3:1 for large text and user-interface parts. */
export const needed = { text: 4.5, ui: 3 } as const;

/** The WCAG contrast ratio of two colours, 1 to 21, unrounded. */
export const contrastRatio = (a: string, b: string): number => wcagContrast(a, b);

/** A ratio as people read it: two decimals (#777777 on white is 4.48:1). */
export const shownRatio = (ratio: number) => Math.round(ratio * 100) / 100;

/** What a shade must reach against each other colour it is drawn with or under. */
export type Against = { colour: string; ratio: number };

const passesAll = (hex: string, against: Against[]) => against.every((a) => contrastRatio(hex, a.colour) >= a.ratio);

/**
 * The shade of `colour` nearest to it in OKLCH lightness that reaches every ratio of `against`,
 * keeping its hue and (as far as the sRGB gamut allows) its chroma; `colour` itself when it
 * already passes; null when no lightness does (e.g. 3:1 against both white and black).
 *
 * For one other colour the passing lightnesses are [0, a] and [b, 1] (darker than it, or
 * lighter), found by binary search since luminance rises with lightness. The passing set for
 * all of them is an intersection of such pairs, so its nearest point to the colour's own
 * lightness is the colour itself or one of those ends: each is checked exactly, as the hex it
 * rounds to, and the nearest that passes wins.
 */
export function nearestPassingShade(colour: string, against: Against[]): string | null {
  const hex = colour.toLowerCase();
  if (passesAll(hex, against)) return hex;
  const base = oklch(hex)!;
  const at = (l: number) => formatHex(clampChroma({ ...base, l }, 'oklch'));
  const ends = against.flatMap((a) => passingEnds(at, a));
  const found = ends.filter((l) => passesAll(at(l), against)).sort((x, y) => Math.abs(x - base.l) - Math.abs(y - base.l));
  return found.length ? at(found[0]) : null;
}

/** The lightness where the shade is as luminous as `other`: contrast is lowest there. */
function equalLuminance(at: (l: number) => string, other: string): number {
  const target = wcagLuminance(other);
  let lo = 0;
  let hi = 1;
  for (let i = 0; i < 30; i++) {
    const mid = (lo + hi) / 2;
    if (wcagLuminance(at(mid)) < target) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

/** The lightest passing shade darker than `a.colour`, and the darkest passing one lighter, when they exist. */
function passingEnds(at: (l: number) => string, a: Against): number[] {
  const passes = (l: number) => contrastRatio(at(l), a.colour) >= a.ratio;
  const middle = equalLuminance(at, a.colour);
  const ends: number[] = [];
  if (passes(0)) ends.push(search(0, middle, passes));
  if (passes(1)) ends.push(search(1, middle, passes));
  return ends;
}

/** Moves from `good` (passing) toward `bad` while it still passes: the last passing lightness. */
function search(good: number, bad: number, passes: (l: number) => boolean): number {
  for (let i = 0; i < 30; i++) {
    const mid = (good + bad) / 2;
    if (passes(mid)) good = mid;
    else bad = mid;
  }
  return good;
}
