import { z } from 'zod';
import { Colour } from '../common.js';
import { Brand, BrandName, Theme, ThemeCheck, ThemeState } from '../resources/brand.js';
import { route } from '../route.js';

// Spec 4.4: the workspace's brand and theme. Only a team's owners change them (403 permission).
// On a plan without its own branding, rooms carry the made-with badge instead.
export const brandRoutes = {
  getBrand: route({
    operation: 'getBrand',
    method: 'GET',
    path: '/api/brand',
    status: 200,
    tag: 'brand',
    summary: "The active workspace's brand.",
    reply: Brand,
  }),
  setBrand: route({
    operation: 'setBrand',
    method: 'POST',
    path: '/api/brand',
    status: 200,
    tag: 'brand',
    summary: 'Sets the brand name and accent; 400 contrast with `problems` when the accent is unreadable in the room.',
    body: z.object({ name: BrandName.nullable(), accent: Colour.nullable() }),
    reply: Brand,
    errors: [403],
  }),
  uploadLogo: route({
    operation: 'uploadLogo',
    method: 'PUT',
    path: '/api/brand/logo',
    status: 200,
    raw: true,
    tag: 'brand',
    summary:
      'The logo image bytes: PNG, JPEG or WebP, up to 256 KB, 16×16 to 2048×2048 pixels, at most 8 times as wide as tall; else 422 file.',
    // The spec does not show this reply: the Brand with its new logo (docs/decisions/brand-and-theme.md).
    reply: Brand,
    errors: [403, 411, 422],
  }),
  removeLogo: route({
    operation: 'removeLogo',
    method: 'POST',
    path: '/api/brand/logo/remove',
    status: 200,
    tag: 'brand',
    summary: 'Removes the logo.',
    reply: Brand,
    errors: [403],
  }),
  getTheme: route({
    operation: 'getTheme',
    method: 'GET',
    path: '/api/brand/theme',
    status: 200,
    tag: 'brand',
    summary: "The workspace's theme and what the room draws with it.",
    reply: ThemeState,
  }),
  setTheme: route({
    operation: 'setTheme',
    method: 'POST',
    path: '/api/brand/theme',
    status: 200,
    tag: 'brand',
    summary: 'Sets the theme, kept whatever the plan; 400 contrast when unreadable.',
    body: z.object({ theme: Theme }),
    reply: ThemeState,
    errors: [403],
  }),
  resetTheme: route({
    operation: 'resetTheme',
    method: 'POST',
    path: '/api/brand/theme/reset',
    status: 200,
    tag: 'brand',
    summary: "Back to the room's own theme.",
    reply: ThemeState,
    errors: [403],
  }),
  checkTheme: route({
    operation: 'checkTheme',
    method: 'POST',
    path: '/api/brand/theme/check',
    status: 200,
    tag: 'brand',
    summary: 'Checks a theme (and accent) for readability; changes nothing.',
    body: z.object({ theme: Theme, accent: Colour.nullable().optional() }),
    reply: ThemeCheck,
  }),
};
