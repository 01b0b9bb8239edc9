import { useCallback, useEffect, useRef, useState } from 'react';
import { api, type ApiError, type GetUrl, toApiError, withQuery } from './api';
import { useSubmit } from './useSubmit';

export const PAGE_SIZE = 20;
/** The most one request lists (the route's limit): a refresh reloads at most this many. */
const MAX_LIMIT = 100;

/** What a log's listing answers: newest first, a page at a time. */
interface LogPage<Item> {
  items: Item[];
  next_cursor: string | null;
}

interface Loaded<Item> {
  /** The list these belong to: the log's path and the status filter. */
  key: string;
  items: Item[];
  cursor: string | null;
}

export interface LiveLog<Item> {
  /** Newest first; undefined until the first answer for this filter. */
  items: Item[] | undefined;
  error: ApiError | undefined;
  /** Appends the next (older) page; undefined when there is none. */
  loadMore: (() => void) | undefined;
  loadingMore: boolean;
  /** Loads again what is shown (new entries on top, statuses brought up to date), in place. */
  refresh: () => void;
}

/**
 * The fresh first entries in place of the loaded ones. When more were loaded than one request lists
 * again, those past the fresh ones stay, with the cursor that follows them.
 */
function merge<Item extends { id: string }>(
  loaded: Loaded<Item> | undefined,
  fresh: LogPage<Item>,
  key: string,
): Loaded<Item> {
  const replaced = { key, items: fresh.items, cursor: fresh.next_cursor };
  if (loaded?.key !== key || fresh.next_cursor === null || loaded.items.length <= fresh.items.length)
    return replaced;
  const last = fresh.items.at(-1);
  const at = loaded.items.findIndex((item) => item.id === last?.id);
  return at < 0 ? replaced : { ...loaded, items: [...fresh.items, ...loaded.items.slice(at + 1)] };
}

/**
 * A log whose entries change status while the page shows them (an endpoint's deliveries, the email
 * message log): GET `target`, optionally of one status, with "Load more" by cursor and a refresh that keeps
 * what is loaded in view.
 */
export function useLiveLog<Item extends { id: string }>(
  target: GetUrl<LogPage<Item>>,
  status: string | undefined,
): LiveLog<Item> {
  const key = `${target}|${status ?? ''}`;
  const [loaded, setLoaded] = useState<Loaded<Item>>();
  const [error, setError] = useState<{ key: string; error: ApiError }>();
  const next = useSubmit();
  // What a refresh started now must reload (how many are shown), without restarting the effect below.
  const shown = useRef<Loaded<Item> | undefined>(undefined);
  useEffect(() => {
    shown.current = loaded;
  }, [loaded]);
  // Answers for a filter no longer shown are dropped.
  const current = useRef(key);
  useEffect(() => {
    current.current = key;
  }, [key]);

  const refresh = useCallback(() => {
    const before = shown.current?.key === key ? shown.current.items.length : 0;
    const limit = Math.min(MAX_LIMIT, Math.max(PAGE_SIZE, before));
    api.get(withQuery(target, { limit: String(limit), status })).then(
      (page) => {
        if (current.current !== key) return;
        setLoaded((state) => merge(state, page, key));
        setError(undefined);
      },
      (failure: unknown) => {
        if (current.current === key) setError({ key, error: toApiError(failure) });
      },
    );
  }, [target, status, key]);

  useEffect(() => {
    refresh();
  }, [refresh]);

  const mine = loaded?.key === key ? loaded : undefined;
  const cursor = mine?.cursor ?? null;
  return {
    items: mine?.items,
    error: (error?.key === key ? error.error : undefined) ?? next.error,
    loadMore:
      cursor === null
        ? undefined
        : () => {
            next.run(
              () => api.get(withQuery(target, { limit: String(PAGE_SIZE), status, cursor })),
              (page) => {
                setLoaded((state) => {
                  if (state?.key !== key) return state;
                  const known = new Set(state.items.map((item) => item.id));
                  return {
                    key,
                    items: [...state.items, ...page.items.filter((item) => !known.has(item.id))],
                    cursor: page.next_cursor,
                  };
                });
              },
            );
          },
    loadingMore: next.pending,
    refresh,
  };
}

/**
 * Refreshes `ms` after each answer while an entry is `waiting` (about to change status), so that the page
 * follows it. `waiting` is defined once, outside the component: a new one each render would restart the timer.
 */
export function useRefreshWhile<Item>(
  items: Item[] | undefined,
  waiting: (item: Item) => boolean,
  refresh: () => void,
  ms: number,
): void {
  useEffect(() => {
    if (items === undefined || !items.some(waiting)) return;
    const timer = setTimeout(refresh, ms);
    return () => {
      clearTimeout(timer);
    };
  }, [items, waiting, refresh, ms]);
}
