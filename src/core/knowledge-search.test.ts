import { describe, expect, it } from 'vitest';
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

  it('ignores case and accents, both ways', () => {
    expect(titles('CAFE')).toEqual(['Cafés']);
    expect(titles('cafés portland')).toEqual(['Cafés']);
  });

  it('finds a word by its beginning', () => {
    expect(titles('compost')).toEqual(['Packaging']);
  });

  it('keeps the brand order between equal scores, and at most limit entries', () => {
    expect(titles('the', 5)).toEqual(['Packaging', 'Subject lines', 'Newsletter']);
    expect(titles('the', 2)).toEqual(['Packaging', 'Subject lines']);
  });

  it('finds nothing for a query without a matching word, or without a word at all', () => {
    expect(titles('espresso')).toEqual([]);
    expect(titles(' ?! ')).toEqual([]);
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
