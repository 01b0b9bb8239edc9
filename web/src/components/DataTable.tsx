import type { ReactNode } from 'react';
import { EmptyRow } from './EmptyRow';

interface DataTableProps<Row> {
  /** The table's accessible name, in a visually hidden caption. */
  name: string;
  columns: readonly string[];
  /** A last column for row buttons; its header is named "Actions" for screen readers only. */
  actions?: boolean;
  rows: readonly Row[];
  /** Shown in one row while there are none (left out for lists that are never empty). */
  emptyText?: string;
  /** One `<tr>` (with its key) per row. */
  children: (row: Row) => ReactNode;
}

/** The console's list tables: named, scrolling sideways on narrow screens, with column headers. */
export function DataTable<Row>({
  name,
  columns,
  actions = false,
  rows,
  emptyText,
  children,
}: DataTableProps<Row>) {
  return (
    <div className="table-wrap">
      <table>
        <caption className="visually-hidden">{name}</caption>
        <thead>
          <tr>
            {columns.map((column) => (
              <th key={column} scope="col">
                {column}
              </th>
            ))}
            {actions && (
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            )}
          </tr>
        </thead>
        <tbody>
          {rows.length === 0 && emptyText !== undefined && (
            <EmptyRow columns={columns.length + (actions ? 1 : 0)}>{emptyText}</EmptyRow>
          )}
          {rows.map((row) => children(row))}
        </tbody>
      </table>
    </div>
  );
}
