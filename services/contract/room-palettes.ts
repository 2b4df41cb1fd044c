// The room's own look (spec 2.8: "a token left out is the room's own"): a light and a dark
// palette, the radius and the font, and what each radius and font name draws. The shell's CSS
// takes every value from here (services/room/viewer/room-look.ts), so there is one source.

export const colourTokens = ['background', 'surface', 'text', 'muted', 'accent', 'accentText', 'border'] as const;
export type ColourToken = (typeof colourTokens)[number];
export type Palette = Record<ColourToken, string>;
export type Scheme = 'light' | 'dark';

export const radiusNames = ['square', 'soft', 'round'] as const;
export type RadiusName = (typeof radiusNames)[number];
export const fontNames = ['system', 'serif', 'rounded'] as const;
export type FontName = (typeof fontNames)[number];

/** The room's own colours. Each passes every pair the room checks (room-theme.test.ts). */
export const roomPalettes: Record<Scheme, Palette> = {
  light: {
    background: '#f3f4f7',
    surface: '#ffffff',
    text: '#1d2330',
    muted: '#5b6475',
    accent: '#3557d4',
    accentText: '#ffffff',
    border: '#dde1e8',
  },
  dark: {
    background: '#15181e',
    surface: '#1f232b',
    text: '#e8ebf1',
    muted: '#a3abb9',
    accent: '#7b93ff',
    accentText: '#000000',
    border: '#343a46',
  },
};

export const roomRadius: RadiusName = 'soft';
export const roomFont: FontName = 'system';

/** The corners a radius name draws: small parts (buttons, fields, tabs) and cards (panels, dialogs). */
export const radiusCss: Record<RadiusName, { small: string; card: string }> = {
  square: { small: '0', card: '0' },
  soft: { small: '.4rem', card: '12px' },
  round: { small: '999px', card: '22px' },
};

/** The font stacks: system faces only, nothing is fetched. */
export const fontCss: Record<FontName, string> = {
  system: 'system-ui, -apple-system, "Segoe UI", sans-serif',
  serif: 'Georgia, "Iowan Old Style", "Times New Roman", serif',
  rounded: 'ui-rounded, "SF Pro Rounded", "Nunito", "Varela Round", system-ui, sans-serif',
};
