import type { ReactNode } from 'react';

/**
 * Preformatted text with a name (its links, if any, inline). A region, so that it may carry one (a bare <pre> may not), and focusable,
 * so that keyboard users can scroll it.
 */
export function CodeBlock({ label, children }: { label: string; children: ReactNode }) {
  return (
    <pre className="code-block" role="region" aria-label={label} tabIndex={0}>
      {children}
    </pre>
  );
}
