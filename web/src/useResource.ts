import { useCallback, useEffect, useState } from 'react';
import { api, type ApiError, toApiError } from './api';

interface Loaded<T> {
  path: string;
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

/** GETs `path` (again when it changes or on reload), keeping the last answer on screen meanwhile. */
export function useResource<T>(path: string): Resource<T> {
  const [attempt, setAttempt] = useState(0);
  const [loaded, setLoaded] = useState<Loaded<T>>();

  useEffect(() => {
    let current = true;
    api.get<T>(path).then(
      (data) => {
        if (current) setLoaded({ path, attempt, data, loadedAt: Date.now() });
      },
      (error: unknown) => {
        if (current) setLoaded({ path, attempt, error: toApiError(error), loadedAt: Date.now() });
      },
    );
    return () => {
      current = false;
    };
  }, [path, attempt]);

  const reload = useCallback(() => {
    setAttempt((n) => n + 1);
  }, []);
  const update = useCallback((change: (data: T) => T) => {
    setLoaded((state) => (state?.data === undefined ? state : { ...state, data: change(state.data) }));
  }, []);

  const samePath = loaded?.path === path;
  return {
    data: samePath ? loaded.data : undefined,
    error: samePath ? loaded.error : undefined,
    loading: !samePath || loaded.attempt !== attempt,
    loadedAt: loaded?.loadedAt ?? 0,
    reload,
    update,
  };
}
