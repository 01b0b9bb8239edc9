import { formatDate, formatDateTime, formatTimeOfDay } from '../format';

/**
 * A timestamp as a readable date, with the exact time on hover and in the markup. Date and time each hold
 * together: a narrow column breaks the line between them, never inside one.
 */
export function Time({ iso, withTime = false }: { iso: string; withTime?: boolean }) {
  return (
    <time dateTime={iso} title={formatDateTime(iso)}>
      <span className="nowrap">
        {formatDate(iso)}
        {withTime && ','}
      </span>
      {withTime && (
        <>
          {' '}
          <span className="nowrap">{formatTimeOfDay(iso)}</span>
        </>
      )}
    </time>
  );
}
