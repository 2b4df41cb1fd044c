import { z } from 'zod';
import { Colour, DateTime, PlanName } from '../common.js';
import { nameText } from '../storable-text.js';

// Spec 2.8. The logo image itself (PNG, JPEG or WebP, up to 256 KB, 16×16 to 2048×2048 pixels, at
// most 8 times as wide as tall) is checked by the upload, not here.

/** One pair the room would draw unreadably (400 `unreadable: …`, reason `contrast`). */
export const ContrastProblem = z.object({
  /** `<foreground> on <background>`, by token name. */
  pair: z.string(),
  foreground: z.string(),
  background: z.string(),
  /** The room's palette the pair is in: a brand accent alone is drawn on both. */
  scheme: z.enum(['light', 'dark']),
  colours: z.object({ foreground: Colour, background: Colour }),
  /** WCAG 2.2 contrast ratio, two decimals. */
  ratio: z.number(),
  /** 4.5 for text, 3 for parts of the interface. */
  needed: z.number(),
  /** The token `shade` is for. */
  token: z.string(),
  /** The nearest shade of the token's hue that passes every pair it is in; null when none does. */
  shade: Colour.nullable(),
});
export type ContrastProblem = z.infer<typeof ContrastProblem>;

/** The stored logo: served at `url` (members) and in rooms; `etag` is a hash of its bytes. */
export const Logo = z.object({
  url: z.string(),
  type: z.enum(['image/png', 'image/jpeg', 'image/webp']),
  width: z.number().int(),
  height: z.number().int(),
  bytes: z.number().int(),
  etag: z.string(),
  updatedAt: DateTime,
});
export type Logo = z.infer<typeof Logo>;

export const BrandName = nameText(80);

export const Brand = z.object({
  name: z.string().nullable(),
  accent: Colour.nullable(),
  logo: Logo.nullable(),
  workspaceName: z.string(),
  planAllows: z.boolean(),
  /** Pairs the stored accent fails with the theme as it is now; the room then draws its own accent. */
  problems: z.array(ContrastProblem).optional(),
});
export type Brand = z.infer<typeof Brand>;

/** Theme tokens (spec 2.8): colours `#rrggbb`, `radius` and `font` by name. A token left out is the room's own. */
export const Theme = z.object({
  background: Colour.optional(),
  surface: Colour.optional(),
  text: Colour.optional(),
  muted: Colour.optional(),
  accent: Colour.optional(),
  accentText: Colour.optional(),
  border: Colour.optional(),
  radius: z.enum(['square', 'soft', 'round']).optional(),
  font: z.enum(['system', 'serif', 'rounded']).optional(),
});
export type Theme = z.infer<typeof Theme>;

/**
 * Every value the room draws, by token name, plus `scheme` (`light`, `dark`, or `light dark` when
 * it follows the viewer's; then the dark palette is under `dark.<token>`).
 */
export const Effective = z.record(z.string(), z.string());

export const ThemeState = z.object({
  theme: Theme.nullable(),
  planAllows: z.boolean(),
  /** The first plan that shows the theme. */
  shownOn: PlanName.nullable(),
  effective: Effective,
  problems: z.array(ContrastProblem),
  /** Tokens of the builder's the room replaced by its own, each `token: why`. */
  fellBack: z.array(z.string()),
});
export type ThemeState = z.infer<typeof ThemeState>;

export const ThemeCheck = z.object({
  problems: z.array(ContrastProblem),
  effective: Effective,
});
export type ThemeCheck = z.infer<typeof ThemeCheck>;
