import {
  type Theme,
  colourTokens,
  roomFont,
  roomPalettes,
  roomRadius,
  type ColourToken,
  type FontName,
  type Palette,
  type RadiusName,
  type Scheme,
} from '@demo-rooms/contract';
import { contrastRatio, nearestPassingShade, needed, shownRatio, type Against } from './contrast.js';

// What the room draws from a workspace's theme and brand accent (spec 2.8, 4.4), and whether it
// is readable there. One function for the api's replies and the room's page, so the checks and
// what is drawn can never disagree.
//
// - Without colours of the builder's own theme, the room follows the viewer's light or dark
//   scheme with its own two palettes; a brand accent is drawn in both, so it is checked on both.
// - A theme with any colour is drawn as one palette: the tokens left out come from the room's
//   light palette, or its dark one when the theme's background (else surface) is dark.
// - Text on the accent is the theme's `accentText`, or else black or white, whichever reads
//   better on that accent (one of them always reaches 4.5:1).

/** Where the shell draws one colour on another (shell.css), and the WCAG bar each must reach. */
export const checkedPairs: { foreground: ColourToken; background: ColourToken; use: keyof typeof needed }[] = [
  { foreground: 'text', background: 'background', use: 'text' },
  { foreground: 'text', background: 'surface', use: 'text' },
  { foreground: 'muted', background: 'background', use: 'text' },
  { foreground: 'muted', background: 'surface', use: 'text' },
  { foreground: 'accentText', background: 'accent', use: 'text' },
  // The accent marks parts: the selected state, focus rings, counts, comment pins (WCAG 1.4.11).
  { foreground: 'accent', background: 'background', use: 'ui' },
  { foreground: 'accent', background: 'surface', use: 'ui' },
];

/** One failing pair: its colours, ratio and bar, and the nearest passing shade of `token`. */
export interface ContrastProblem {
  pair: string;
  foreground: ColourToken;
  background: ColourToken;
  scheme: Scheme;
  colours: { foreground: string; background: string };
  ratio: number;
  needed: number;
  /** The token the shade is for: the builder's own side of the pair. */
  token: ColourToken;
  /** Same hue, only lightness changed; passes every pair `token` is in. Null when none does. */
  shade: string | null;
}

/** What the builder asked for: the stored (or proposed) theme and the brand's accent. */
export interface LookAsked {
  theme: Theme | null;
  accent: string | null;
}

export interface Look {
  /** `light dark`: the room follows the viewer's scheme; otherwise it draws that one palette. */
  scheme: Scheme | 'light dark';
  palettes: { scheme: Scheme; palette: Palette }[];
  radius: RadiusName;
  font: FontName;
}

const builderColours = (asked: LookAsked): ColourToken[] => {
  const set = colourTokens.filter((t) => asked.theme?.[t]);
  return asked.accent && !set.includes('accent') ? [...set, 'accent'] : set;
};

const autoTextOn = (accent: string) => (contrastRatio('#ffffff', accent) >= contrastRatio('#000000', accent) ? '#ffffff' : '#000000');
const isDark = (colour: string) => contrastRatio(colour, '#ffffff') > contrastRatio(colour, '#000000');

function baseScheme(theme: Theme): Scheme {
  const ground = theme.background ?? theme.surface;
  return ground && isDark(ground) ? 'dark' : 'light';
}

/** The palettes, radius and font the room draws for `asked`, unchecked. */
export function composeLook(asked: LookAsked): Look {
  const theme = asked.theme ?? {};
  const ownColours = colourTokens.some((t) => theme[t]);
  const schemes: Scheme[] = ownColours ? [baseScheme(theme)] : ['light', 'dark'];
  const palettes = schemes.map((scheme) => {
    const own = roomPalettes[scheme];
    const picked = Object.fromEntries(colourTokens.filter((t) => theme[t]).map((t) => [t, theme[t]!.toLowerCase()]));
    const accent = (theme.accent ?? asked.accent)?.toLowerCase();
    const palette: Palette = { ...own, ...picked, ...(accent ? { accent } : {}) };
    if (!theme.accentText && accent) palette.accentText = autoTextOn(accent);
    return { scheme, palette };
  });
  return { scheme: ownColours ? schemes[0] : 'light dark', palettes, radius: theme.radius ?? roomRadius, font: theme.font ?? roomFont };
}

/** Every pair of `look` below its bar, each with the nearest passing shade of the builder's side. */
export function problemsOf(look: Look, asked: LookAsked): ContrastProblem[] {
  const mine = builderColours(asked);
  // Text on the accent picked by the room follows the accent, so it is no constraint on a shade.
  const autoText = !asked.theme?.accentText;
  const problems: ContrastProblem[] = [];
  for (const { scheme, palette } of look.palettes) {
    for (const p of checkedPairs) {
      const ratio = contrastRatio(palette[p.foreground], palette[p.background]);
      if (ratio >= needed[p.use]) continue;
      const token = mine.includes(p.foreground) || !mine.includes(p.background) ? p.foreground : p.background;
      problems.push({
        pair: `${p.foreground} on ${p.background}`,
        foreground: p.foreground,
        background: p.background,
        scheme,
        colours: { foreground: palette[p.foreground], background: palette[p.background] },
        ratio: shownRatio(ratio),
        needed: needed[p.use],
        token,
        shade: nearestPassingShade(palette[token], constraintsOn(look, token, autoText)),
      });
    }
  }
  return problems;
}

/** What a shade of `token` must reach against the other side of every pair it is in, in every palette. */
function constraintsOn(look: Look, token: ColourToken, autoText: boolean): Against[] {
  return look.palettes.flatMap(({ palette }) =>
    checkedPairs
      .filter((p) => p.foreground === token || p.background === token)
      .filter((p) => !(autoText && token === 'accent' && p.foreground === 'accentText'))
      .map((p) => ({ colour: palette[p.foreground === token ? p.background : p.foreground], ratio: needed[p.use] })),
  );
}

/** Every value the room draws, by token name (spec 2.8 `effective`); `dark.<token>` too when it follows the viewer's scheme. */
export function effectiveOf(look: Look): Record<string, string> {
  const [first, second] = look.palettes;
  const out: Record<string, string> = { ...first.palette, radius: look.radius, font: look.font, scheme: look.scheme };
  if (second) for (const t of colourTokens) out[`${second.scheme}.${t}`] = second.palette[t];
  return out;
}

export interface DrawnLook {
  look: Look;
  effective: Record<string, string>;
  /** The builder's tokens the room replaced by its own, each as `token: why`. */
  fellBack: string[];
  /** What is wrong with the stored theme and accent as they are, in the room's checks. */
  problems: ContrastProblem[];
}

/**
 * What the room draws for a workspace: the builder's theme and accent when the plan shows them
 * and they are readable. A stored accent or theme can become unreadable later (an accent checked
 * against a theme that was then reset): the room then draws its own in their place rather than
 * something unreadable, and says so in `fellBack`.
 */
export function drawnLook(asked: LookAsked, planAllows: boolean): DrawnLook {
  const mine = builderColours(asked);
  const shapeOnly: Theme | null = asked.theme ? { radius: asked.theme.radius, font: asked.theme.font } : null;
  const problems = problemsOf(composeLook(asked), asked);
  if (!planAllows) {
    const dropped = [...mine, ...(['radius', 'font'] as const).filter((t) => asked.theme?.[t])];
    const look = composeLook({ theme: null, accent: null });
    return { look, effective: effectiveOf(look), fellBack: dropped.map((t) => `${t}: the plan has no own branding`), problems };
  }
  const tries: { asked: LookAsked; dropped: ColourToken[] }[] = [
    { asked, dropped: [] },
    { asked: { ...asked, accent: null }, dropped: asked.theme?.accent ? [] : ['accent'] },
    { asked: { theme: shapeOnly, accent: asked.accent }, dropped: colourTokens.filter((t) => asked.theme?.[t]) },
    { asked: { theme: shapeOnly, accent: null }, dropped: mine },
  ];
  for (const t of tries) {
    const look = composeLook(t.asked);
    if (problemsOf(look, t.asked).length) continue;
    const why = (token: ColourToken) => problems.find((p) => p.token === token || p.foreground === token || p.background === token);
    const fellBack = t.dropped.map((token) => {
      const p = why(token);
      return p ? `${token}: unreadable, ${p.pair} is ${p.ratio}:1, needs ${p.needed}:1` : `${token}: unreadable with the rest`;
    });
    return { look, effective: effectiveOf(look), fellBack, problems };
  }
  // The room's own always passes (room-theme.test.ts), so the last try never fails.
  throw new Error('the room has no readable look');
}
