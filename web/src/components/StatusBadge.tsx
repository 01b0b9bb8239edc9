import { capitalize } from '../format';

/** "Active", "Expired", "Revoked", "Draft", …: the colour repeats what the word already says. */
export function StatusBadge({ status }: { status: string }) {
  return <span className={`badge badge-${status}`}>{capitalize(status)}</span>;
}
