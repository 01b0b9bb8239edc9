import { useEffect, useMemo, useState } from 'react';

type CountTokens = (text: string) => number;

/**
 * o200k, the tokenizer of GPT-4o and later OpenAI models: a fair measure of what a model reads (others count
 * a few percent differently). Its ranks weigh megabytes, so they load on first use, as a chunk of their own
 * that only the brand page fetches.
 */
let loading: Promise<CountTokens> | undefined;
function loadCounter(): Promise<CountTokens> {
  loading ??= import('gpt-tokenizer/encoding/o200k_base').then(
    ({ countTokens }) =>
      // A brand may well mention "<|endoftext|>": a model reads it as text, not as the special token.
      (text: string) =>
        countTokens(text, { disallowedSpecial: new Set() }),
    (error: unknown) => {
      // The next page to ask tries again (the chunk may have failed on a flaky connection).
      loading = undefined;
      throw error;
    },
  );
  return loading;
}

/**
 * How many o200k tokens each text is (pass a memoized array: each new one is counted again); undefined while
 * the tokenizer loads, null if it could not be loaded.
 */
export function useTokenCounts(texts: readonly string[]): number[] | null | undefined {
  const [count, setCount] = useState<CountTokens | null>();
  useEffect(() => {
    let current = true;
    loadCounter().then(
      (counter) => {
        if (current) setCount(() => counter);
      },
      () => {
        if (current) setCount(null);
      },
    );
    return () => {
      current = false;
    };
  }, []);
  return useMemo(() => (count ? texts.map(count) : count), [count, texts]);
}
