import type { ReactNode } from 'react';

interface PageHeaderProps {
  title: string;
  /** A trail above the title, e.g. "Settings" for Agent Access. */
  eyebrow?: string;
  actions?: ReactNode;
  children?: ReactNode;
}

/** The page's one h1, and the document title to match. */
export function PageHeader({ title, eyebrow, actions, children }: PageHeaderProps) {
  return (
    <header className="page-header">
      <title>{`${title} · Brand Context`}</title>
      <div className="page-header-text">
        {eyebrow !== undefined && <p className="eyebrow">{eyebrow}</p>}
        {/* Focusable from script only: dialogs hand focus here when their opener is gone. */}
        <h1 tabIndex={-1}>{title}</h1>
        {children}
      </div>
      {actions !== undefined && <div className="page-header-actions">{actions}</div>}
    </header>
  );
}
