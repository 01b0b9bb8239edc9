import type { KnowledgeEntry } from './brand-context.js';

/**
 * Ranks a brand's knowledge entries by a free-text query, for the MCP tool search_brand_knowledge (README
 * "MCP"): a word found in an entry's title counts more than one in its tags, which counts more than one in
 * its content. Words are compared without case or accents ("cafe" finds "Café"), and a query word matches
 * the beginning of a word ("roast" finds "roasted"). Entries matching no word are left out.
 */

const WEIGHTS = { title: 3, tags: 2, content: 1 } as const;

/** Lower-case words without accents; one-letter words say too little to rank by. */
export function searchWords(text: string): string[] {
  return (
    text
      .normalize('NFD')
      .replace(/\p{M}+/gu, '')
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? []
  ).filter((word) => word.length > 1);
}

function matches(words: readonly string[], queryWord: string): boolean {
  return words.some((word) => word.startsWith(queryWord));
}

/** The best entries first (ties in the brand's order), at most `limit` of them. */
export function searchKnowledge<Entry extends Pick<KnowledgeEntry, 'title' | 'tags' | 'content'>>(
  entries: readonly Entry[],
  query: string,
  limit: number,
): Entry[] {
  const queryWords = [...new Set(searchWords(query))];
  if (queryWords.length === 0) return [];
  return entries
    .map((entry, index) => {
      const fields = {
        title: searchWords(entry.title),
        tags: searchWords(entry.tags.join(' ')),
        content: searchWords(entry.content),
      };
      const score = queryWords.reduce(
        (sum, queryWord) =>
          sum +
          (Object.keys(WEIGHTS) as (keyof typeof WEIGHTS)[]).reduce(
            (fieldSum, field) => fieldSum + (matches(fields[field], queryWord) ? WEIGHTS[field] : 0),
            0,
          ),
        0,
      );
      return { entry, index, score };
    })
    .filter((ranked) => ranked.score > 0)
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .slice(0, limit)
    .map((ranked) => ranked.entry);
}
