import { expect, it } from 'vitest';
import { composeLook } from '../../../../core/rules/room-theme.js';
import { luminance, readableOn } from './readable.js';

it('measures WCAG relative luminance from black to white', () => {
  expect(luminance('#000000')).toBe(0);
  expect(luminance('#ffffff')).toBeCloseTo(1, 10);
  expect(luminance('#808080')).toBeCloseTo(0.2159, 4);
  expect(luminance('#ff0000')).toBeCloseTo(0.2126, 10);
});

it('puts white on dark accents and black on light ones', () => {
  expect(readableOn('#1d2330')).toBe('#ffffff');
  expect(readableOn('#0000ff')).toBe('#ffffff');
  expect(readableOn('#ffff00')).toBe('#000000');
  expect(readableOn('#f3f4f7')).toBe('#000000');
});

it('chooses as the room does (services/core/rules/room-theme.ts), on every grey and the primary colours', () => {
  const greys = Array.from({ length: 256 }, (_, v) => `#${v.toString(16).padStart(2, '0').repeat(3)}`);
  const colours = [...greys, '#ff0000', '#00ff00', '#0000ff', '#00ffff', '#ff00ff', '#ffff00', '#3366cc', '#e4572e'];
  const roomChoice = (accent: string) => composeLook({ accent, theme: null }).palettes[0].palette.accentText;
  expect(colours.filter((hex) => readableOn(hex) !== roomChoice(hex))).toEqual([]);
});
