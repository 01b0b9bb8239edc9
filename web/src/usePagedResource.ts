import { useState } from 'react';
import { type ApiError, api, type GetUrl, withQuery } from './api';
import { useResource } from './useResource';
import { useSubmit } from './useSubmit';

interface Page {
  next_cursor: string | null;
}

interface PagedResource<P extends Page> {
  /** Every page loaded so far, in order; undefined until the first one arrives. */
  pages: P[] | undefined;
  error: ApiError | undefined;
  loading: boolean;
  /** Appends the next page; undefined when there is none. */
  loadMore: (() => void) | undefined;
  loadingMore: boolean;
  /** Loads the first page again, forgetting the others: after a write that adds to the list. */
  reload: () => void;
}

/** A cursor-paged list: GETs `target` (which may carry a query), then the pages after it as they are asked for. */
export function usePagedResource<P extends Page>(target: GetUrl<P>): PagedResource<P> {
  const first = useResource(target);
  // Later pages, appended as they are asked for.
  const [more, setMore] = useState<P[]>([]);
  const next = useSubmit();

  const pages = first.data === undefined ? undefined : [first.data, ...more];
  const cursor = pages?.at(-1)?.next_cursor ?? null;

  return {
    pages,
    error: first.error ?? next.error,
    loading: first.loading,
    loadMore:
      cursor === null
        ? undefined
        : () => {
            next.run(
              () => api.get(withQuery(target, { cursor })),
              (page) => {
                setMore((loaded) => [...loaded, page]);
              },
            );
          },
    loadingMore: next.pending,
    reload: () => {
      setMore([]);
      first.reload();
    },
  };
}
