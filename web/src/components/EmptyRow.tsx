/** The one row of a table with nothing in it yet: the table (and its name) stays, for everyone to find. */
export function EmptyRow({ columns, children }: { columns: number; children: string }) {
  return (
    <tr>
      <td colSpan={columns} className="empty-row">
        {children}
      </td>
    </tr>
  );
}
