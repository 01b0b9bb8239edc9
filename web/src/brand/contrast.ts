import { COLOR_ROLES, type ColorRole, HEX_COLOR } from '../../../src/core/brand-context';

/**
 * The WCAG 2.2 contrast of the brand's text/background color pairs (docs/brand-check.md "Contrast report"),
 * computed in the browser from the colors as typed: relative luminance of sRGB (SC 1.4.3, "relative
 * luminance", with the 0.04045 threshold of the current definition), ratio (L1 + 0.05) / (L2 + 0.05).
 */

/** AA for normal text (SC 1.4.3). */
export const AA_NORMAL = 4.5;
/** AA for large text: 18pt, or 14pt bold (SC 1.4.3). */
export const AA_LARGE = 3;

function channel(value: number): number {
  const c = value / 255;
  return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
}

/** The relative luminance of `#RRGGBB`, 0 (black) to 1 (white). */
export function relativeLuminance(hex: string): number {
  const n = Number.parseInt(hex.slice(1), 16);
  return 0.2126 * channel((n >> 16) & 255) + 0.7152 * channel((n >> 8) & 255) + 0.0722 * channel(n & 255);
}

/** The contrast ratio of two colors, 1 to 21, whichever is lighter. */
export function contrastRatio(a: string, b: string): number {
  const [light, dark] = [relativeLuminance(a), relativeLuminance(b)].sort((x, y) => y - x) as [
    number,
    number,
  ];
  return (light + 0.05) / (dark + 0.05);
}

/**
 * "4.49": the ratio cut (never rounded up) to two decimals, so a pair shown at 4.50 does pass: WCAG's
 * thresholds are not to be reached by rounding.
 */
export function ratioText(ratio: number): string {
  return (Math.floor(ratio * 100) / 100).toFixed(2);
}

export interface ContrastPair {
  foreground: ColorRole;
  background: ColorRole;
  foregroundHex: string;
  backgroundHex: string;
  ratio: number;
  normal: boolean;
  large: boolean;
}

/**
 * The pairs a brand's copy is set in: text, primary, secondary and accent on the background; text and the
 * background (as light text) on primary, secondary and accent, as on a button or a banner.
 */
const PAIRS: readonly [ColorRole, ColorRole][] = [
  ['text', 'background'],
  ['primary', 'background'],
  ['secondary', 'background'],
  ['accent', 'background'],
  ['text', 'primary'],
  ['background', 'primary'],
  ['text', 'secondary'],
  ['background', 'secondary'],
  ['text', 'accent'],
  ['background', 'accent'],
];

/** The pairs whose two colors are both set and valid, in the order above. */
export function contrastPairs(colors: Partial<Record<ColorRole, string | null>>): ContrastPair[] {
  const valid = (role: ColorRole) => {
    const value = colors[role]?.trim() ?? '';
    return HEX_COLOR.test(value) ? value.toUpperCase() : undefined;
  };
  return PAIRS.flatMap(([foreground, background]) => {
    const foregroundHex = valid(foreground);
    const backgroundHex = valid(background);
    if (foregroundHex === undefined || backgroundHex === undefined) return [];
    const ratio = contrastRatio(foregroundHex, backgroundHex);
    return [
      {
        foreground,
        background,
        foregroundHex,
        backgroundHex,
        ratio,
        normal: ratio >= AA_NORMAL,
        large: ratio >= AA_LARGE,
      },
    ];
  });
}

export const CONTRAST_ROLES = COLOR_ROLES;
