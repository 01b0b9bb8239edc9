import { formatDate, formatDateTime } from '../format';

/** A timestamp as a readable date, with the exact time on hover and in the markup. */
export function Time({ iso, withTime = false }: { iso: string; withTime?: boolean }) {
  return (
    <time dateTime={iso} title={formatDateTime(iso)}>
      {withTime ? formatDateTime(iso) : formatDate(iso)}
    </time>
  );
}
