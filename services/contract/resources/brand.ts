import { z } from 'zod';
import { Colour, Obj, PlanName } from '../common.js';

// Spec 2.8. The logo image itself (PNG, JPEG or WebP, up to 256 KB, 16×16 to 2048×2048 pixels, at
// most 8 times as wide as tall) is checked by the upload, not here.

export const Brand = z.object({
  name: z.string().nullable(),
  accent: Colour.nullable(),
  logo: Obj.nullable(),
  workspaceName: z.string(),
  planAllows: z.boolean(),
  problems: z.array(Obj).optional(),
});
export type Brand = z.infer<typeof Brand>;

/**
 * Theme tokens: every token is a colour (#rrggbb) except `radius` and `font`. A token left out is
 * the room's own. The spec does not list the colour tokens' names, so any other key is a colour.
 */
export const Theme = z
  .object({
    radius: z.enum(['square', 'soft', 'round']).optional(),
    font: z.enum(['system', 'serif', 'rounded']).optional(),
  })
  .catchall(Colour);
export type Theme = z.infer<typeof Theme>;

export const ThemeState = z.object({
  theme: Theme.nullable(),
  planAllows: z.boolean(),
  /** The first plan that shows the theme. */
  shownOn: PlanName.nullable(),
  /** Every colour and value the room draws. */
  effective: z.record(z.string(), z.string()),
  problems: z.array(Obj),
  fellBack: z.array(z.string()),
});
export type ThemeState = z.infer<typeof ThemeState>;

export const ThemeCheck = z.object({
  problems: z.array(Obj),
  effective: z.record(z.string(), z.string()),
});
export type ThemeCheck = z.infer<typeof ThemeCheck>;
