import type { BrandDocumentInput } from '../../core/brand-context.js';

const facts: [string, string, string[]][] = [
  ['Founded', 'Acme Coffee was founded in Portland, Oregon, in 2012 by two former baristas.', ['history']],
  [
    'Roastery',
    'All coffee is roasted in small batches of 12 kg on a restored 1968 Probat drum roaster.',
    ['process'],
  ],
  [
    'Sourcing',
    'Green coffee is bought directly from 14 farms in Ethiopia, Colombia, Guatemala and Kenya.',
    ['sourcing'],
  ],
  [
    'Freshness promise',
    'Every bag ships within 48 hours of roasting and carries its roast date.',
    ['product'],
  ],
  [
    'Subscriptions',
    'Subscribers choose a delivery every 1, 2 or 4 weeks and can pause at any time.',
    ['product'],
  ],
  ['Cafés', 'Acme runs three cafés in Portland: Alberta, Division and the Pearl.', ['locations']],
  ['Certification', 'Acme has been a certified B Corporation since 2019.', ['impact']],
  ['Packaging', 'Bags are compostable; the valve and tin tie go in the recycling.', ['impact']],
];
const guidelines: [string, string, string[]][] = [
  [
    'Talk like a barista',
    'Write as a friendly barista would explain coffee across the counter: plain words, no jargon without a gloss.',
    ['voice'],
  ],
  ['Never salesy', 'Avoid urgency tricks ("only today!", countdowns). Invite; do not push.', ['voice']],
  ['Name the farm', 'When a coffee is mentioned, name its farm or cooperative and region.', ['content']],
  ['Brewing advice', 'Give brewing ratios in grams (1:16 for filter) and water at 94 °C.', ['content']],
  ['Emoji', 'At most one emoji per email, never in subject lines.', ['style']],
  ['Sign-off', 'Sign emails "— The Acme crew".', ['style']],
  ['Inclusive language', 'Address readers as "you"; avoid gendered greetings.', ['style']],
  ['Prices', 'Show prices with the currency symbol and no trailing zeros: $18, not $18.00.', ['style']],
];
const references: [string, string, string[]][] = [
  [
    'Tasting notes glossary',
    'Bright: lively acidity. Round: full body, soft finish. Clean: no lingering bitterness.',
    ['reference'],
  ],
  [
    'Roast levels',
    'Light (City), Medium (City+), Dark (Full City+). Acme roasts nothing darker than Full City+.',
    ['reference'],
  ],
  [
    'Grind sizes',
    'Espresso: fine. Pour-over: medium-fine. French press: coarse. Cold brew: extra coarse.',
    ['reference'],
  ],
  [
    'Seasonal calendar',
    'Ethiopian lots arrive in May, Colombian in March and October, Kenyan in July.',
    ['reference'],
  ],
];

const knowledge = [
  ...facts.map(([title, content, tags]) => ({ kind: 'fact' as const, title, content, tags })),
  ...guidelines.map(([title, content, tags]) => ({ kind: 'guideline' as const, title, content, tags })),
  ...references.map(([title, content, tags]) => ({ kind: 'reference' as const, title, content, tags })),
];

/** A complete brand: every field filled, 20 knowledge entries (the benchmark's reference payload). */
export const DEMO_BRAND: BrandDocumentInput = {
  name: 'Acme Coffee',
  description: 'Small-batch coffee roaster from Portland, Oregon, shipping fresh-roasted beans since 2012.',
  voice:
    'Warm, plain-spoken and curious, never salesy. Short sentences. We explain coffee the way a good barista does: ' +
    'with enthusiasm, without snobbery. Prefer concrete details (farm, altitude, roast date) over adjectives.',
  colors: {
    primary: '#6B3E26',
    secondary: '#F2E8DC',
    accent: '#D9822B',
    background: '#FFFFFF',
    text: '#1F1A17',
    palette: [
      { name: 'Espresso', hex: '#6B3E26', role: 'primary' },
      { name: 'Oat milk', hex: '#F2E8DC', role: 'secondary' },
      { name: 'Copper', hex: '#D9822B', role: 'accent' },
      { name: 'Charcoal', hex: '#1F1A17', role: 'text' },
    ],
  },
  fonts: {
    heading: {
      family: 'Fraunces',
      weights: [600, 700],
      fallback: ['Georgia', 'serif'],
      source: 'google',
      url: null,
    },
    body: {
      family: 'Inter',
      weights: [400, 500],
      fallback: ['system-ui', 'sans-serif'],
      source: 'google',
      url: null,
    },
  },
  social: {
    website: 'https://acme-coffee.example',
    instagram: 'https://instagram.com/acmecoffee.example',
    linkedin: 'https://www.linkedin.com/company/acme-coffee-example',
  },
  knowledge,
  assets: [
    {
      kind: 'logo',
      name: 'Primary logo',
      url: 'https://cdn.acme-coffee.example/brand/logo.svg',
      mime_type: 'image/svg+xml',
      width: 512,
      height: 128,
      bytes: 4210,
      variant: 'primary',
      background: 'light',
      alt: 'Acme Coffee wordmark',
    },
    {
      kind: 'logo',
      name: 'Reversed logo',
      url: 'https://cdn.acme-coffee.example/brand/logo-reversed.svg',
      mime_type: 'image/svg+xml',
      width: 512,
      height: 128,
      bytes: 4198,
      variant: 'reversed',
      background: 'dark',
      alt: 'Acme Coffee wordmark in white',
    },
    {
      kind: 'icon',
      name: 'Cup icon',
      url: 'https://cdn.acme-coffee.example/brand/icon.png',
      mime_type: 'image/png',
      width: 256,
      height: 256,
      bytes: 9120,
      variant: null,
      background: 'any',
      alt: 'A steaming coffee cup',
    },
  ],
  skills: [
    {
      name: 'Subject lines',
      description: 'Writes email subject lines in the Acme voice.',
      instructions:
        'Under 45 characters. Lead with the coffee or the farm, not a discount. No emoji, no ALL CAPS.',
    },
    {
      name: 'New coffee announcement',
      description: 'Announces a newly arrived single-origin coffee.',
      instructions:
        'Open with the farm and region, then three tasting notes, then brewing advice, then the price.',
    },
    {
      name: 'Café events',
      description: 'Invites subscribers to cupping sessions and latte-art nights.',
      instructions:
        'Give the café, date, time and what to expect in the first two sentences. Close with the sign-off.',
    },
  ],
  preferences: {
    language: 'en',
    sign_off: '— The Acme crew',
    currency: 'USD',
    max_emoji_per_email: 1,
    avoid_words: ['synergy', 'hurry', 'limited time'],
  },
  // The guidelines above as rules the on-brand check applies (docs/brand-check.md): the avoided words, the
  // plain word over the fancy one, one emoji at most, and only the brand's colors and fonts in emails.
  rules: [
    { kind: 'banned_term', value: 'synergy' },
    { kind: 'banned_term', value: 'hurry', message: 'No urgency tricks: invite, do not push.' },
    { kind: 'banned_term', value: 'limited time', message: 'No urgency tricks: invite, do not push.' },
    {
      kind: 'preferred_term',
      value: { use: 'small-batch', instead_of: ['artisanal', 'artisan'] },
      severity: 'warning',
    },
    {
      kind: 'preferred_term',
      value: { use: 'you', instead_of: ['guys'] },
      message: 'Avoid gendered greetings.',
    },
    { kind: 'max_exclamations', value: 1, severity: 'warning' },
    { kind: 'max_emoji', value: 1 },
    { kind: 'palette_only', value: null },
    { kind: 'fonts_only', value: null, severity: 'warning' },
  ],
};
