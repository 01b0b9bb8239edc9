import { useCallback, useEffect, useState } from 'react';

interface NoticeOptions {
  /** Notices like "Copied" go away by themselves; "Saved" stays until the next edit. */
  clearAfterMs?: number;
  initial?: string | null;
}

/** A success notice for a StatusMessage. */
export function useNotice({ clearAfterMs, initial = null }: NoticeOptions = {}): [
  message: string | null,
  show: (message: string | null) => void,
] {
  const [message, setMessage] = useState<string | null>(initial);

  useEffect(() => {
    if (message === null || clearAfterMs === undefined) return;
    const timer = setTimeout(() => {
      setMessage(null);
    }, clearAfterMs);
    return () => {
      clearTimeout(timer);
    };
  }, [message, clearAfterMs]);

  const show = useCallback((next: string | null) => {
    setMessage(next);
  }, []);
  return [message, show];
}

export const COPY_NOTICE = { clearAfterMs: 4000 };

/** Copies `text`, then shows how it went; resolves to whether it was copied. */
export function copyText(text: string, show: (message: string) => void): Promise<boolean> {
  // Through a promise: outside a secure context `navigator.clipboard` is missing altogether.
  return Promise.resolve()
    .then(() => navigator.clipboard.writeText(text))
    .then(
      () => {
        show('Copied');
        return true;
      },
      () => {
        show('Could not copy: select the text and press Ctrl+C (⌘C on a Mac).');
        return false;
      },
    );
}
