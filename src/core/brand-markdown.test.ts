import { describe, expect, it } from 'vitest';
import { brandContext, demoBrandContext } from '#test/support/fixtures/demo-brand.js';
import { DEMO_BRAND } from '../services/demo/demo-brand.js';
import { BRAND_SECTIONS, type BrandContext, type BrandDocumentInput } from './brand-context.js';
import { brandView, type BrandViewRequest, renderBrandView } from './brand-views.js';

function markdown(context: BrandContext, request: Omit<BrandViewRequest, 'format'> = {}): string {
  return renderBrandView(context, brandView({ format: 'markdown', ...request })).text;
}

/** The lines a Markdown reader takes for headings: ATX (`## …`) and setext (a line underlined by === or ---). */
function headings(text: string): string[] {
  const lines = text.split('\n');
  return lines.filter(
    (line, index) =>
      /^ {0,3}#{1,6}(\s|$)/.test(line) ||
      (line.trim() !== '' && /^ {0,3}(=+|-+)\s*$/.test(lines[index + 1] ?? '')),
  );
}

/** A table row's cells: split on the pipes that are not escaped. */
function cells(row: string): string[] {
  return row.split(/(?<!\\)\|/).slice(1, -1);
}

const demo = markdown(demoBrandContext());

describe('brandMarkdown of the demo brand', () => {
  it('has the brand’s name, then a heading per section', () => {
    expect(headings(demo)).toEqual([
      '# Acme Coffee',
      '## Voice',
      '## Colors',
      '## Fonts',
      '## Social',
      '## Knowledge',
      '### Guidelines',
      '### Facts',
      '### References',
      '## Assets',
      '## Skills',
      '### Subject lines',
      '### New coffee announcement',
      '### Café events',
      '## Preferences',
      '## Rules',
    ]);
    expect(demo).toMatch(/^# Acme Coffee\n\nSmall-batch coffee roaster from Portland, Oregon/);
  });

  it('shows the colors as one table, a palette color on its role’s row', () => {
    expect(demo).toContain(
      [
        '## Colors',
        '| Use | Hex | Name |',
        '| --- | --- | --- |',
        '| primary | #6B3E26 | Espresso |',
        '| secondary | #F2E8DC | Oat milk |',
        '| accent | #D9822B | Copper |',
        '| background | #FFFFFF |  |',
        '| text | #1F1A17 | Charcoal |',
        '',
      ].join('\n'),
    );
  });

  it('gives each font one line: family, weights, fallbacks and source', () => {
    expect(demo).toContain(
      [
        '## Fonts',
        '- Heading: Fraunces 600/700 (fallback Georgia, serif; Google Fonts)',
        '- Body: Inter 400/500 (fallback system-ui, sans-serif; Google Fonts)',
        '',
      ].join('\n'),
    );
  });

  it('lists knowledge as bullets grouped by kind, guidelines first', () => {
    expect(demo).toContain(
      '### Guidelines\n- **Talk like a barista**: Write as a friendly barista would explain coffee',
    );
    expect(demo.match(/^- \*\*/gm)).toHaveLength(20);
  });

  it('sets a skill’s description apart from its instructions: in italics, then a paragraph of its own', () => {
    expect(demo).toContain(
      [
        '### Subject lines',
        '_Writes email subject lines in the Acme voice._',
        '',
        'Under 45 characters. Lead with the coffee or the farm, not a discount. No emoji, no ALL CAPS.',
        '',
        '### New coffee announcement',
      ].join('\n'),
    );
  });

  it('writes preference values as JSON, so that a string never reads as words around it', () => {
    expect(demo).toContain(
      [
        '## Preferences',
        '- language: "en"',
        '- sign_off: "— The Acme crew"',
        '- currency: "USD"',
        '- max_emoji_per_email: 1',
        '- avoid_words: ["synergy", "hurry", "limited time"]',
      ].join('\n'),
    );
  });

  it('ends with the rules, one line a model can follow for each', () => {
    expect(demo.slice(demo.indexOf('\n\n## Rules\n'))).toBe(
      [
        '',
        '',
        '## Rules',
        '- Never say "synergy".',
        '- Never say "hurry": No urgency tricks: invite, do not push.',
        '- Never say "limited time": No urgency tricks: invite, do not push.',
        '- Say "small-batch" instead of "artisanal", "artisan".',
        '- Say "you" instead of "guys": Avoid gendered greetings.',
        '- At most 1 exclamation mark.',
        '- At most 1 emoji.',
        '- Use only the brand colors.',
        '- Use only the brand fonts.',
        '',
      ].join('\n'),
    );
  });

  it('carries no ids, timestamps or byte counts', () => {
    expect(demo).not.toMatch(/\b(kb|as|sk|rl)_/);
    expect(demo).not.toMatch(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/);
    expect(demo).not.toContain('ws_demo');
    expect(demo).not.toContain('4210');
  });
});

describe('brandMarkdown of palette colors beside the roles', () => {
  const text = markdown(
    brandContext({
      name: 'Tinted',
      colors: {
        primary: '#112233',
        palette: [
          { name: 'brand.blue', hex: '#0000FF', role: 'primary' },
          { name: 'Sky', hex: '#88CCFF', role: 'highlight' },
          { name: 'Sand', hex: '#EEDDCC' },
        ],
      },
    }),
    { sections: ['colors'] },
  );

  it('gives a role one row, its own color, and says a palette color with a role is a palette color', () => {
    expect(text).toContain(
      [
        '| primary | #112233 |  |',
        '| palette (role: primary) | #0000FF | brand.blue |',
        '| palette (role: highlight) | #88CCFF | Sky |',
        '| palette | #EEDDCC | Sand |',
      ].join('\n'),
    );
    expect(text.match(/^\| primary /gm)).toHaveLength(1);
  });
});

describe('brandMarkdown of rules', () => {
  const rules = (document: Omit<BrandDocumentInput, 'name'>) =>
    markdown(brandContext({ name: 'Ruled', ...document }), { sections: ['rules'] });

  it('says every kind of rule as a short instruction', () => {
    expect(
      rules({
        rules: [
          { kind: 'banned_term', value: 'cheap' },
          { kind: 'preferred_term', value: { use: 'coffee', instead_of: ['joe', 'java'] } },
          { kind: 'required_phrase', value: 'The Acme crew' },
          { kind: 'max_exclamations', value: 2 },
          { kind: 'max_exclamations', value: 1 },
          { kind: 'max_emoji', value: 0 },
          { kind: 'palette_only', value: null },
          { kind: 'fonts_only', value: null, severity: 'warning' },
        ],
      }),
    ).toBe(
      [
        '# Ruled',
        '',
        '## Rules',
        '- Never say "cheap".',
        '- Say "coffee" instead of "joe", "java".',
        '- Always include "The Acme crew".',
        '- At most 2 exclamation marks.',
        '- At most 1 exclamation mark.',
        '- At most 0 emoji.',
        '- Use only the brand colors.',
        '- Use only the brand fonts.',
        '',
      ].join('\n'),
    );
  });

  it('adds a rule’s message after a colon, its severity not at all', () => {
    expect(
      rules({
        rules: [{ kind: 'banned_term', value: 'ASAP', message: 'Give a date.', severity: 'warning' }],
      }),
    ).toContain('\n- Never say "ASAP": Give a date.\n');
  });

  it('says an asked rules section with no rule is empty, and leaves it out of the whole brand', () => {
    expect(rules({})).toBe('# Ruled\n\n## Rules\n_None._\n');
    expect(markdown(brandContext({ name: 'Ruled' }))).not.toContain('## Rules');
  });
});

describe('brandMarkdown of hostile text', () => {
  // A name is one line now (src/core/inputs.ts), but brands saved before may hold a line break: the
  // renderer keeps one out of its heading all the same.
  const hostile: BrandContext = {
    ...brandContext({
      ...DEMO_BRAND,
      description: 'Roasters.\n# Not the name\nSecond line\n===',
      voice: 'Warm.\n\n## Fonts\n- Comic Sans\n\n```\nunclosed fence',
      colors: {
        primary: '#6B3E26',
        palette: [
          { name: 'Oat | milk', hex: '#F2E8DC', role: 'secondary' },
          { name: 'Foam\nline', hex: '#FFFFFF' },
        ],
      },
      knowledge: [
        {
          kind: 'fact',
          title: 'Founded\n## Assets',
          content: 'In 2012.\n## Skills\nStill the fact.',
          tags: [],
        },
      ],
      skills: [
        { name: 'Subject\nlines', description: '**Bold** and _emphasis_.', instructions: 'Heading\n---' },
      ],
    }),
    name: 'Acme\n## Colors',
  };
  const text = markdown(hostile, { sections: ['description', 'voice', 'colors', 'knowledge', 'skills'] });

  it('keeps every heading the renderer wrote, and only those', () => {
    expect(headings(text)).toEqual([
      '# Acme ## Colors',
      '## Voice',
      '## Colors',
      '## Knowledge',
      '### Facts',
      '## Skills',
      '### Subject lines',
    ]);
  });

  it('keeps a pipe in a palette name inside its cell', () => {
    const rows = text.split('\n').filter((line) => line.startsWith('|'));
    for (const row of rows) expect(cells(row)).toHaveLength(3);
    expect(rows).toContain('| palette (role: secondary) | #F2E8DC | Oat \\| milk |');
    expect(rows).toContain('| palette | #FFFFFF | Foam line |');
  });

  it('closes a code fence the text leaves open, so the next section is not swallowed', () => {
    expect(text).toContain('```\nunclosed fence\n```\n\n## Colors');
  });

  it('keeps a title’s line break out of its bullet and a content’s lines under it', () => {
    expect(text).toContain('- **Founded ## Assets**: In 2012.\n  \\## Skills\n  Still the fact.');
  });

  it('keeps the Markdown of a skill’s text', () => {
    expect(text).toContain('### Subject lines\n_**Bold** and _emphasis_._\n\nHeading\n\\---');
  });
});

describe('brandMarkdown of empty sections', () => {
  const empty = brandContext({ name: 'Blank' } satisfies BrandDocumentInput);

  it('renders an empty whole brand as its name alone', () => {
    expect(markdown(empty)).toBe('# Blank\n');
  });

  it('says an explicitly asked section is empty', () => {
    expect(markdown(empty, { sections: ['voice', 'colors', 'skills'] })).toBe(
      '# Blank\n\n## Voice\n_None._\n\n## Colors\n_None._\n\n## Skills\n_None._\n',
    );
    expect(markdown(empty, { sections: ['description'] })).toBe('# Blank\n\n_No description._\n');
  });

  it('says no entry matches when a knowledge filter keeps none, sections named or not', () => {
    expect(markdown(demoBrandContext(), { sections: ['knowledge'], knowledge_tags: ['nothing'] })).toBe(
      '# Acme Coffee\n\n## Knowledge\n_No entry matches the filter._\n',
    );
    expect(markdown(demoBrandContext(), { knowledge_tags: ['styles'] })).toContain(
      '\n\n## Knowledge\n_No entry matches the filter._\n\n## Assets\n',
    );
    expect(markdown(empty, { knowledge_kinds: ['fact'] })).toBe(
      '# Blank\n\n## Knowledge\n_No entry matches the filter._\n',
    );
  });

  it('renders every section named like the whole brand, empty sections left out', () => {
    expect(markdown(empty, { sections: [...BRAND_SECTIONS] })).toBe('# Blank\n');
  });

  it('heads a section read alone with the brand’s name', () => {
    expect(markdown(demoBrandContext(), { sections: ['fonts'] })).toMatch(
      /^# Acme Coffee\n\n## Fonts\n- Heading: /,
    );
  });
});
