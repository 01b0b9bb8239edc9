import type { ReactNode } from 'react';
import type { Resource } from '../useResource';
import { Dialog } from './Dialog';
import { ProblemAlert } from './ProblemAlert';

interface DetailDialogProps<T> {
  title: string;
  /** The GET of the thing's details. */
  detail: Resource<T>;
  /** What the list's row already tells, shown at once, if any. */
  summary?: ReactNode;
  /** "Loading the delivery…": said while the details are on their way. */
  loadingText: string;
  /** The details, once they arrive. */
  children: (data: T) => ReactNode;
  onClose: () => void;
}

/** One entry of a log in a dialog: what its row says at once, then its details as they load, and Close. */
export function DetailDialog<T>({
  title,
  detail,
  summary,
  loadingText,
  children,
  onClose,
}: DetailDialogProps<T>) {
  return (
    <Dialog title={title} onClose={onClose}>
      <div className="stack dialog-wide">
        <ProblemAlert error={detail.error} />
        {summary}
        {detail.data === undefined
          ? detail.loading && <p className="muted">{loadingText}</p>
          : children(detail.data)}
        <div className="dialog-actions">
          <button type="button" className="button button-primary" onClick={onClose}>
            Close
          </button>
        </div>
      </div>
    </Dialog>
  );
}
