import type { ReactNode } from 'react';

/** The card of the pages shown before signing in: sign-in, accepting an invite, resetting a password. */
export function AuthCard({ title, children }: { title: string; children: ReactNode }) {
  return (
    <main className="centered-page">
      <title>{`${title} · Brand Context`}</title>
      <div className="sign-in-card">
        <p className="brand-mark">
          <span className="brand-mark-dot" aria-hidden="true" />
          Brand Context
        </p>
        <h1>{title}</h1>
        {children}
      </div>
    </main>
  );
}
