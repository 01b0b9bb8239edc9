/**
 * Preformatted text with a name. A region, so that it may carry one (a bare <pre> may not), and focusable,
 * so that keyboard users can scroll it.
 */
export function CodeBlock({ label, children }: { label: string; children: string }) {
  return (
    <pre className="code-block" role="region" aria-label={label} tabIndex={0}>
      {children}
    </pre>
  );
}
