import type { KnowledgeEntry } from './brand-context.js';

/**
 * Ranks a brand's knowledge entries by a free-text query, for the MCP tool search_brand_knowledge (docs/mcp.md
 * "MCP"). Words are compared without case or accents ("cafe" finds "Café"), and a query word matches the
 * beginning of a word ("roast" finds "roasted"). Common English words ("how", "do", "the") are ignored unless
 * the query has nothing else, so a question ranks by what it asks about. An entry matching more of the
 * query's distinct words comes first; between those, a word found in an entry's title counts more than one
 * in its tags, which counts more than one in its content, and the query's exact phrase adds a bonus.
 * Entries matching no word are left out.
 */

const WEIGHTS = { title: 3, tags: 2, content: 1 } as const;
type Field = keyof typeof WEIGHTS;
const FIELDS = Object.keys(WEIGHTS) as Field[];

/** Worth more than a title word, so that among equal coverage the entry saying the very phrase wins. */
const PHRASE_BONUS = 4;

/** A small list on purpose: words that only shape a question, never what it is about ("off", "not" stay). */
const STOP_WORDS = new Set(
  (
    'an and are as at be by can could did do does for from how if in into is it its me my of on or our ' +
    'should so than that the their them then there these they this those to us was we were what when ' +
    'where which who whom why will with would you your'
  ).split(' '),
);

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

/** Whether `phrase` occurs in `words` word for word, in order. */
function containsPhrase(words: readonly string[], phrase: readonly string[]): boolean {
  for (let start = 0; start + phrase.length <= words.length; start++) {
    if (phrase.every((word, offset) => words[start + offset] === word)) return true;
  }
  return false;
}

/** The best entries first (ties in the brand's order), at most `limit` of them. */
export function searchKnowledge<Entry extends Pick<KnowledgeEntry, 'title' | 'tags' | 'content'>>(
  entries: readonly Entry[],
  query: string,
  limit: number,
): Entry[] {
  const phrase = searchWords(query);
  const distinct = [...new Set(phrase)];
  const meaningful = distinct.filter((word) => !STOP_WORDS.has(word));
  const queryWords = meaningful.length > 0 ? meaningful : distinct;
  if (queryWords.length === 0) return [];
  return entries
    .map((entry, index) => {
      const fields: Record<Field, string[]> = {
        title: searchWords(entry.title),
        tags: searchWords(entry.tags.join(' ')),
        content: searchWords(entry.content),
      };
      const found = queryWords.map((queryWord) =>
        FIELDS.reduce((sum, field) => sum + (matches(fields[field], queryWord) ? WEIGHTS[field] : 0), 0),
      );
      const coverage = found.filter((weight) => weight > 0).length;
      const bonus =
        phrase.length > 1 && FIELDS.some((field) => containsPhrase(fields[field], phrase)) ? PHRASE_BONUS : 0;
      const score = found.reduce((sum, weight) => sum + weight, bonus);
      return { entry, index, coverage, score };
    })
    .filter((ranked) => ranked.coverage > 0)
    .sort((a, b) => b.coverage - a.coverage || b.score - a.score || a.index - b.index)
    .slice(0, limit)
    .map((ranked) => ranked.entry);
}
