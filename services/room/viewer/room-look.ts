import { fontCss, radiusCss, type Palette } from '@demo-rooms/contract';
import type { Look } from '../../core/rules/room-theme.js';
import type { WorkspaceLook } from '../../data/brand-look.js';
import { escapeHtml } from '../html.js';

// The workspace's look in the room's page: the theme as CSS custom properties (shell.css draws
// everything from them), the brand in the bar, and the service's badge on a plan without own
// branding. Every value comes from a checked `#rrggbb` or a name mapped here, never from text
// a builder typed, so the style element carries nothing but these declarations.

const cssNames: Record<keyof Palette, string> = {
  background: '--background',
  surface: '--surface',
  text: '--text',
  muted: '--muted',
  accent: '--accent',
  accentText: '--accent-text',
  border: '--border',
};

const colours = (palette: Palette) => (Object.keys(cssNames) as (keyof Palette)[]).map((t) => `${cssNames[t]}:${palette[t]}`).join(';');

/** The style element of the look: one palette, or the light one with the dark one for viewers who prefer it. */
export function lookStyle(look: Look): string {
  const [first, second] = look.palettes;
  const radius = radiusCss[look.radius];
  const root = `:root{color-scheme:${look.scheme};${colours(first.palette)};--radius:${radius.small};--radius-card:${radius.card};--font:${fontCss[look.font]}}`;
  const dark = second ? `@media (prefers-color-scheme: dark){:root{${colours(second.palette)}}}` : '';
  return `<style id="room-look">${root}${dark}</style>`;
}

/** The brand in the bar, before the project's name: the logo, the brand's name, or both; nothing on a plan without own branding. */
export function brandMark(look: WorkspaceLook, logoUrl: string): string {
  if (!look.planAllows) return '';
  const { name, logo } = look.brand;
  if (!name && !logo) return '';
  const image = logo
    ? `<img src="${escapeHtml(logoUrl)}?v=${escapeHtml(logo.hash)}" alt="${escapeHtml(name ?? look.brand.workspaceName)}" width="${logo.width}" height="${logo.height}">`
    : '';
  return `<span class="brand">${image}${name ? `<span class="brand-name">${escapeHtml(name)}</span>` : ''}</span>`;
}

/** The service's badge, on a plan without its own branding: "Made with" the service, linking to it. */
export function madeWithBadge(look: WorkspaceLook, service: { name: string; url: string }): string {
  if (look.planAllows) return '';
  return `<a class="made-with" href="${escapeHtml(service.url)}" target="_blank" rel="noopener">Made with ${escapeHtml(service.name)}</a>`;
}
