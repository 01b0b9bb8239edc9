import { useCallback, useEffect, useState } from 'react';
import { api, type ApiError, type GetUrl, toApiError } from './api';

interface Loaded<T> {
  target: string;
  attempt: number;
  data?: T;
  error?: ApiError;
  /** When the answer arrived: what "expires in N days" is counted from, so rendering stays pure. */
  loadedAt: number;
}

export interface Resource<T> {
  data: T | undefined;
  error: ApiError | undefined;
  loading: boolean;
  loadedAt: number;
  reload: () => void;
  /** Changes the loaded data in place, e.g. with the answer of a write. */
  update: (change: (data: T) => T) => void;
}

/** GETs `target` (again when it changes or on reload), keeping the last answer on screen meanwhile. */
export function useResource<T>(target: GetUrl<T>): Resource<T> {
  const [attempt, setAttempt] = useState(0);
  const [loaded, setLoaded] = useState<Loaded<T>>();

  useEffect(() => {
    let current = true;
    api.get(target).then(
      (data) => {
        if (current) setLoaded({ target, attempt, data, loadedAt: Date.now() });
      },
      (error: unknown) => {
        if (current) setLoaded({ target, attempt, error: toApiError(error), loadedAt: Date.now() });
      },
    );
    return () => {
      current = false;
    };
  }, [target, attempt]);

  const reload = useCallback(() => {
    setAttempt((n) => n + 1);
  }, []);
  const update = useCallback((change: (data: T) => T) => {
    setLoaded((state) => (state?.data === undefined ? state : { ...state, data: change(state.data) }));
  }, []);

  const sameTarget = loaded?.target === target;
  return {
    data: sameTarget ? loaded.data : undefined,
    error: sameTarget ? loaded.error : undefined,
    loading: !sameTarget || loaded.attempt !== attempt,
    loadedAt: loaded?.loadedAt ?? 0,
    reload,
    update,
  };
}
