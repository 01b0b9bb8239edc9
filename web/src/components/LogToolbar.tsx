import { capitalize } from '../format';
import { SelectField } from './fields';

interface LogToolbarProps<S extends string> {
  statuses: readonly S[];
  /** The status shown ('' for all). */
  status: S | '';
  onStatusChange: (status: S | '') => void;
  onRefresh: () => void;
}

/** A live log's toolbar: the status it shows (or all of them), and Refresh. */
export function LogToolbar<S extends string>({
  statuses,
  status,
  onStatusChange,
  onRefresh,
}: LogToolbarProps<S>) {
  const options: { value: S | ''; label: string }[] = [
    { value: '', label: 'All statuses' },
    ...statuses.map((value) => ({ value, label: capitalize(value) })),
  ];
  return (
    <div className="toolbar">
      <SelectField label="Status" value={status} options={options} onChange={onStatusChange} />
      <button type="button" className="button" onClick={onRefresh}>
        Refresh
      </button>
    </div>
  );
}
