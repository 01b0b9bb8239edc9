import type { ReactNode } from 'react';
import type { ApiError } from '../api';

/** An error from the service as it explains itself: what is wrong, and how to fix it. */
export function ProblemAlert({ error, children }: { error: ApiError | undefined; children?: ReactNode }) {
  if (error === undefined) return null;
  return (
    <div role="alert" className="alert">
      <p className="alert-detail">{error.detail}</p>
      {error.resolution !== '' && <p className="alert-resolution">{error.resolution}</p>}
      {children}
    </div>
  );
}
