import { describe, expect, it } from 'vitest';
import { contrastPairs, contrastRatio, ratioText, relativeLuminance } from './contrast';

describe('the WCAG 2.2 contrast report', () => {
  it('gives black on white 21 and a color on itself 1', () => {
    expect(contrastRatio('#000000', '#FFFFFF')).toBeCloseTo(21, 5);
    expect(contrastRatio('#6B3E26', '#6B3E26')).toBe(1);
  });

  it('computes relative luminance as WCAG defines it', () => {
    expect(relativeLuminance('#FFFFFF')).toBeCloseTo(1, 6);
    expect(relativeLuminance('#000000')).toBe(0);
    // #777777: the classic grey just under 4.5 on white.
    expect(contrastRatio('#777777', '#FFFFFF')).toBeCloseTo(4.48, 2);
  });

  it('never rounds a ratio up to a threshold', () => {
    expect(ratioText(4.4999)).toBe('4.49');
    expect(ratioText(21)).toBe('21.00');
  });

  it('judges AA for normal (4.5) and large (3) text', () => {
    const [pair] = contrastPairs({ text: '#777777', background: '#FFFFFF' });
    expect(pair).toMatchObject({ foreground: 'text', background: 'background', normal: false, large: true });
    const [dark] = contrastPairs({ text: '#222222', background: '#ffffff' });
    expect(dark).toMatchObject({ normal: true, large: true, backgroundHex: '#FFFFFF' });
  });

  it('lists only the pairs whose two colors are set and valid', () => {
    const pairs = contrastPairs({
      primary: '#6B3E26',
      secondary: null,
      accent: '#nothex',
      background: '#FFF8F0',
      text: '#2B1A12',
    });
    expect(pairs.map((pair) => `${pair.foreground}/${pair.background}`)).toEqual([
      'text/background',
      'primary/background',
      'text/primary',
      'background/primary',
    ]);
  });
});
