import { type RefObject, useEffect, useRef } from 'react';

/**
 * For an alert that answers a click: once shown, it is scrolled into view if it is not (clear of the sticky
 * bars, which the page's scroll-padding leaves room for) and given focus, so that neither the eye nor a
 * screen reader is left behind at the button. The element needs tabIndex={-1}.
 */
export function useReveal<T extends HTMLElement>(): RefObject<T | null> {
  const ref = useRef<T>(null);
  useEffect(() => {
    const element = ref.current;
    if (element === null) return;
    element.scrollIntoView({ block: 'nearest' });
    element.focus({ preventScroll: true });
  }, []);
  return ref;
}
