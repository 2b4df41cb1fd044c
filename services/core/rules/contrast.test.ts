import { describe, expect, it } from 'vitest';
import { contrastRatio, nearestPassingShade, needed, shownRatio } from './contrast.js';

// Known WCAG 2.x ratios (WebAIM's checker gives the same to two decimals).
const known: [string, string, number][] = [
  ['#777777', '#ffffff', 4.48],
  ['#767676', '#ffffff', 4.54],
  ['#000000', '#ffffff', 21],
  ['#ffffff', '#ffffff', 1],
  ['#595959', '#ffffff', 7],
  ['#949494', '#ffffff', 3.03],
  ['#ff7a00', '#ffffff', 2.61],
  ['#0000ff', '#ffffff', 8.59],
  ['#ff0000', '#ffffff', 4],
  ['#3557d4', '#ffffff', 6.06],
];

describe('contrastRatio', () => {
  it.each(known)('%s on %s is %s:1', (a, b, ratio) => {
    expect(shownRatio(contrastRatio(a, b))).toBe(ratio);
    expect(shownRatio(contrastRatio(b, a))).toBe(ratio);
  });

  it('fails #777777 on white for text and passes #767676', () => {
    expect(contrastRatio('#777777', '#ffffff')).toBeLessThan(needed.text);
    expect(contrastRatio('#767676', '#ffffff')).toBeGreaterThanOrEqual(needed.text);
  });
});

describe('nearestPassingShade', () => {
  const cases: { colour: string; against: { colour: string; ratio: number }[]; expected?: string | null }[] = [
    { colour: '#777777', against: [{ colour: '#ffffff', ratio: 4.5 }], expected: '#767676' },
    { colour: '#ff7a00', against: [{ colour: '#ffffff', ratio: 4.5 }], expected: '#bf5900' },
    { colour: '#3557d4', against: [{ colour: '#ffffff', ratio: 4.5 }], expected: '#3557d4' },
    {
      colour: '#ffd000',
      against: [
        { colour: '#ffffff', ratio: 3 },
        { colour: '#15181e', ratio: 3 },
      ],
    },
    { colour: '#1d2330', against: [{ colour: '#111111', ratio: 4.5 }] },
    {
      colour: '#00aa55',
      against: [
        { colour: '#f3f4f7', ratio: 3 },
        { colour: '#ffffff', ratio: 3 },
        { colour: '#1f232b', ratio: 3 },
      ],
    },
    // Nothing is 3:1 from white and from black at once.
    {
      colour: '#3557d4',
      against: [
        { colour: '#ffffff', ratio: 4.5 },
        { colour: '#000000', ratio: 4.7 },
      ],
      expected: null,
    },
  ];

  it.each(cases)('$colour against $against', ({ colour, against, expected }) => {
    const shade = nearestPassingShade(colour, against);
    if (expected !== undefined) expect(shade).toBe(expected);
    if (shade === null) return;
    // Every shade offered really passes, as the hex it is.
    for (const a of against) expect(contrastRatio(shade, a.colour)).toBeGreaterThanOrEqual(a.ratio);
  });

  it('keeps the hue: only lightness moves', async () => {
    const { oklch } = await import('culori');
    const shade = nearestPassingShade('#ff7a00', [{ colour: '#ffffff', ratio: 4.5 }])!;
    expect(Math.abs(oklch(shade)!.h! - oklch('#ff7a00')!.h!)).toBeLessThan(3);
  });
});
