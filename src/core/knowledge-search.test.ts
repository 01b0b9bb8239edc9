import { describe, expect, it } from 'vitest';
import { demoBrandContext } from '#test/support/fixtures/demo-brand.js';
import { searchKnowledge, searchWords } from './knowledge-search.js';

const entry = (title: string, tags: string[], content: string) => ({ title, tags, content });

const ENTRIES = [
  entry('Packaging', ['impact'], 'Bags are compostable; the tin tie goes in the recycling.'),
  entry('Emoji', ['style'], 'At most one emoji per email, never in subject lines.'),
  entry('Subject lines', ['email'], 'Lead with the coffee, not the discount.'),
  entry('Cafés', ['locations'], 'Three cafés in Portland.'),
  entry('Newsletter', ['subject'], 'Monthly, on the first Tuesday.'),
];

const titles = (query: string, limit = 5) => searchKnowledge(ENTRIES, query, limit).map((e) => e.title);

describe('searchKnowledge', () => {
  it('ranks a word in the title above one in the tags, above one in the content', () => {
    expect(titles('subject')).toEqual(['Subject lines', 'Newsletter', 'Emoji']);
  });

  it('adds up the query words, so an entry matching more of them comes first', () => {
    expect(titles('email subject')).toEqual(['Subject lines', 'Emoji', 'Newsletter']);
  });

  it('puts an entry saying the exact phrase above one with the same words apart', () => {
    const entries = [
      entry('Lines', [], 'Short lines for each subject.'),
      entry('Style', [], 'Keep subject lines short.'),
    ];
    expect(searchKnowledge(entries, 'subject lines', 5).map((e) => e.title)).toEqual(['Style', 'Lines']);
  });

  it('ignores case and accents, both ways', () => {
    expect(titles('CAFE')).toEqual(['Cafés']);
    expect(titles('cafés portland')).toEqual(['Cafés']);
  });

  it('finds a word by its beginning', () => {
    expect(titles('compost')).toEqual(['Packaging']);
  });

  it('keeps the brand order between equal scores, and at most limit entries, searching by common words when the query has nothing else', () => {
    expect(titles('the', 5)).toEqual(['Packaging', 'Subject lines', 'Newsletter']);
    expect(titles('the', 2)).toEqual(['Packaging', 'Subject lines']);
  });

  it('finds nothing for a query without a matching word, or without a word at all', () => {
    expect(titles('espresso')).toEqual([]);
    expect(titles(' ?! ')).toEqual([]);
  });
});

describe('searchKnowledge on the demo brand', () => {
  const { knowledge } = demoBrandContext();
  const demoTitles = (query: string) => searchKnowledge(knowledge, query, 5).map((e) => e.title);

  it.each([
    ['emoji', 'Emoji'],
    ['sign off', 'Sign-off'],
    ['prices', 'Prices'],
    ['espresso grind', 'Grind sizes'],
    ['roast date', 'Freshness promise'],
    ['how do I greet readers', 'Inclusive language'],
    ['when do kenyan coffees arrive', 'Seasonal calendar'],
  ])('answers "%s" with "%s" first', (query, title) => {
    expect(demoTitles(query)[0]).toBe(title);
  });

  it('ignores common words such as "do", so a question does not find every entry that says them', () => {
    expect(demoTitles('how do I greet readers')).toEqual(['Inclusive language']);
    expect(demoTitles('when do kenyan coffees arrive')).not.toContain('Never salesy');
  });

  it('ranks the entry with more of the query words above title matches on one of them', () => {
    expect(demoTitles('roast date')).toEqual(['Freshness promise', 'Roastery', 'Roast levels']);
  });
});

describe('searchWords', () => {
  it('splits on anything but letters and digits and drops one-letter words', () => {
    expect(searchWords('Crème brûlée, a 1:16 ratio — Über-good')).toEqual([
      'creme',
      'brulee',
      '16',
      'ratio',
      'uber',
      'good',
    ]);
  });
});
