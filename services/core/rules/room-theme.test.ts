import { describe, expect, it } from 'vitest';
import { contrastRatio } from './contrast.js';
import { composeLook, drawnLook, effectiveOf, problemsOf, type LookAsked } from './room-theme.js';
import { roomPalettes } from '@demo-rooms/contract';

const check = (asked: LookAsked) => problemsOf(composeLook(asked), asked);

describe('the room theme', () => {
  it("passes with the room's own look, in light and dark", () => {
    const look = composeLook({ theme: null, accent: null });
    expect(look.scheme).toBe('light dark');
    expect(problemsOf(look, { theme: null, accent: null })).toEqual([]);
    expect(effectiveOf(look)).toMatchObject({
      ...roomPalettes.light,
      radius: 'soft',
      font: 'system',
      scheme: 'light dark',
      'dark.background': roomPalettes.dark.background,
    });
  });

  it('checks a brand accent on the light and the dark backgrounds, with text picked to read on it', () => {
    expect(check({ theme: null, accent: '#3f61e1' })).toEqual([]);
    // A common blue is a shade too dark for the dark palette's surface: the nearest passing shade is a nudge.
    expect(check({ theme: null, accent: '#3b5bdb' }).map((p) => [p.scheme, p.pair, p.ratio, p.shade])).toEqual([
      ['dark', 'accent on surface', 2.78, '#3f61e1'],
    ]);
    const orange = check({ theme: null, accent: '#ffd000' });
    expect(orange.map((p) => [p.scheme, p.pair])).toEqual([
      ['light', 'accent on background'],
      ['light', 'accent on surface'],
    ]);
    expect(orange[0]).toMatchObject({ token: 'accent', needed: 3, colours: { foreground: '#ffd000', background: '#f3f4f7' } });
    const dark = check({ theme: null, accent: '#1a237e' });
    expect(dark.map((p) => [p.scheme, p.pair])).toEqual([
      ['dark', 'accent on background'],
      ['dark', 'accent on surface'],
    ]);
  });

  it('offers for each problem a shade that passes every pair its token is in', () => {
    const asked: LookAsked[] = [
      { theme: null, accent: '#ffd000' },
      { theme: null, accent: '#1a237e' },
      { theme: { background: '#ffffff', text: '#777777' }, accent: null },
      { theme: { background: '#101010', muted: '#555555', accent: '#202020' }, accent: null },
      { theme: { accent: '#3557d4', accentText: '#9999ff' }, accent: null },
      { theme: { background: '#ffffff' }, accent: '#ffe066' },
      { theme: { surface: '#fafafa', border: '#ffffff' }, accent: '#00ff00' },
    ];
    for (const a of asked) {
      const problems = check(a);
      expect(problems.length).toBeGreaterThan(0);
      for (const p of problems) {
        expect(p.shade).not.toBeNull();
        const fixed: LookAsked =
          p.token === 'accent' && !a.theme?.accent ? { ...a, accent: p.shade } : { ...a, theme: { ...a.theme, [p.token]: p.shade! } };
        expect(check(fixed).filter((q) => q.token === p.token && q.pair === p.pair)).toEqual([]);
        const { foreground, background } = p.colours;
        const recomputed = p.token === p.foreground ? contrastRatio(p.shade!, background) : contrastRatio(foreground, p.shade!);
        expect(recomputed).toBeGreaterThanOrEqual(p.needed);
      }
    }
  });

  it('names #777777 text on white: 4.48:1 against 4.5, and the shade #767676', () => {
    const [p] = check({ theme: { background: '#ffffff', surface: '#ffffff', text: '#777777' }, accent: null });
    expect(p).toMatchObject({ pair: 'text on background', ratio: 4.48, needed: 4.5, token: 'text', shade: '#767676', scheme: 'light' });
  });

  it('draws a dark theme from the dark palette for the tokens left out', () => {
    const look = composeLook({ theme: { background: '#0b0c10' }, accent: null });
    expect(look.scheme).toBe('dark');
    expect(look.palettes[0].palette).toMatchObject({ background: '#0b0c10', text: roomPalettes.dark.text });
  });

  it('shows nothing of the builder on a plan without own branding, and says what fell back', () => {
    const drawn = drawnLook({ theme: { text: '#222222', radius: 'round' }, accent: '#3b5bdb' }, false);
    expect(drawn.effective).toMatchObject({ text: roomPalettes.light.text, radius: 'soft', accent: roomPalettes.light.accent });
    expect(drawn.fellBack).toEqual([
      'text: the plan has no own branding',
      'accent: the plan has no own branding',
      'radius: the plan has no own branding',
    ]);
  });

  it("falls back to the room's accent when a stored accent no longer reads, and keeps the rest", () => {
    const drawn = drawnLook({ theme: { radius: 'square' }, accent: '#ffd000' }, true);
    expect(drawn.effective).toMatchObject({ accent: roomPalettes.light.accent, radius: 'square' });
    expect(drawn.fellBack).toEqual(['accent: unreadable, accent on background is 1.34:1, needs 3:1']);
    const fine = drawnLook({ theme: { font: 'serif', text: '#101820' }, accent: '#3b5bdb' }, true);
    expect(fine.fellBack).toEqual([]);
    expect(fine.effective).toMatchObject({ font: 'serif', text: '#101820', accent: '#3b5bdb', accentText: '#ffffff', scheme: 'light' });
  });
});
