import type { ReactNode } from 'react';
import { EmptyRow } from './EmptyRow';

export interface Column<Row> {
  header: string;
  cell: (row: Row) => ReactNode;
  /** The cell that names its row: a row header, and the title of the row's card on narrow screens. */
  rowHeader?: boolean;
  className?: string;
}

interface DataTableProps<Row> {
  /** The table's accessible name, in a visually hidden caption. */
  name: string;
  columns: readonly Column<Row>[];
  rows: readonly Row[];
  rowKey: (row: Row) => string;
  /**
   * The row's buttons (Revoke, Remove), in a last column whose header is named "Actions" for screen readers
   * only. It stays in view at the table's right edge, even when a narrow window makes the table scroll.
   */
  actions?: ((row: Row) => ReactNode) | undefined;
  /** Shown in one row while there are none (left out for lists that are never empty). */
  emptyText?: string;
}

/**
 * The console's list tables: named, with column headers. Where the table has less room than its columns
 * need (phones), each row becomes a card of "column: value" lines (the CSS reads `data-label`), so that
 * nothing needs scrolling sideways.
 */
export function DataTable<Row>({ name, columns, rows, rowKey, actions, emptyText }: DataTableProps<Row>) {
  return (
    <div className="table-wrap">
      <table className="data-table">
        <caption className="visually-hidden">{name}</caption>
        <thead>
          <tr>
            {columns.map((column) => (
              <th key={column.header} scope="col">
                {column.header}
              </th>
            ))}
            {actions !== undefined && (
              <th scope="col" className="cell-actions">
                <span className="visually-hidden">Actions</span>
              </th>
            )}
          </tr>
        </thead>
        <tbody>
          {rows.length === 0 && emptyText !== undefined && (
            <EmptyRow columns={columns.length + (actions === undefined ? 0 : 1)}>{emptyText}</EmptyRow>
          )}
          {rows.map((row) => (
            <tr key={rowKey(row)}>
              {columns.map((column) => {
                const className = `${column.rowHeader ? 'cell-name' : ''} ${column.className ?? ''}`.trim();
                return column.rowHeader ? (
                  <th key={column.header} scope="row" className={className}>
                    {column.cell(row)}
                  </th>
                ) : (
                  <td key={column.header} data-label={column.header} className={className || undefined}>
                    {column.cell(row)}
                  </td>
                );
              })}
              {actions !== undefined && <td className="cell-actions">{actions(row)}</td>}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
