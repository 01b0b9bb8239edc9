import { countTokens } from 'gpt-tokenizer';
import { countTokens as countO200kTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { demoBrandContext } from '#test/support/fixtures/demo-brand.js';
import { BRAND_SECTIONS, type BrandSection } from './brand-context.js';
import { brandView, renderBrandView, WHOLE_BRAND_JSON } from './brand-views.js';

/**
 * What the demo brand costs a model's context window, in o200k_base tokens (the encoding of current OpenAI
 * models, gpt-tokenizer's default): docs/reading-brand-context.md "Formats and sections" promises a compact Markdown for prompts.
 */
const demo = demoBrandContext();

function markdown(sections?: BrandSection[]): string {
  return renderBrandView(demo, brandView({ format: 'markdown', sections })).text;
}

describe('token budgets of the demo brand', () => {
  it('counts in o200k_base, gpt-tokenizer’s default encoding', () => {
    expect(countTokens(markdown())).toBe(countO200kTokens(markdown()));
  });

  it('fits the whole brand as Markdown in 1,500 tokens', () => {
    expect(countTokens(markdown())).toBeLessThanOrEqual(1500);
  });

  it('fits every section read alone as Markdown in 1,200 tokens', () => {
    for (const section of BRAND_SECTIONS)
      expect(countTokens(markdown([section])), section).toBeLessThanOrEqual(1200);
  });

  it('costs at most 60 % of the tokens of the JSON', () => {
    const json = countTokens(renderBrandView(demo, WHOLE_BRAND_JSON).text);
    expect(countTokens(markdown())).toBeLessThanOrEqual(json * 0.6);
  });
});
