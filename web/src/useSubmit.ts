import { useCallback, useState } from 'react';
import { type ApiError, toApiError } from './api';

interface Submit {
  /** True from the start of a request until its answer: the control that started it stays disabled. */
  pending: boolean;
  /** The last request's error, cleared when the next one starts. */
  error: ApiError | undefined;
  run: <T>(
    request: () => Promise<T>,
    onSuccess?: (result: T) => void,
    onFailure?: (error: ApiError) => void,
  ) => void;
  /** Forgets the last error: a new attempt was refused before any request (a check in the browser). */
  clear: () => void;
}

/** A request the user starts (a form's submit, a dialog's confirm, "Load more"), with its state to show. */
export function useSubmit(): Submit {
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<ApiError>();

  const run = useCallback(
    <T>(
      request: () => Promise<T>,
      onSuccess?: (result: T) => void,
      onFailure?: (error: ApiError) => void,
    ) => {
      setPending(true);
      setError(undefined);
      request().then(
        (result) => {
          setPending(false);
          onSuccess?.(result);
        },
        (failure: unknown) => {
          const problem = toApiError(failure);
          setError(problem);
          setPending(false);
          onFailure?.(problem);
        },
      );
    },
    [],
  );
  const clear = useCallback(() => {
    setError(undefined);
  }, []);
  return { pending, error, run, clear };
}
