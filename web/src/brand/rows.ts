/** Immutable edits of the editor's row lists. */

export function replaceAt<T>(rows: readonly T[], index: number, row: T): T[] {
  return rows.map((current, at) => (at === index ? row : current));
}

export function removeAt<T>(rows: readonly T[], index: number): T[] {
  return rows.filter((_, at) => at !== index);
}

/** Swaps the row at `index` with its neighbour `by` places away; a move past either end does nothing. */
export function move<T>(rows: readonly T[], index: number, by: -1 | 1): T[] {
  const row = rows[index];
  const other = rows[index + by];
  if (row === undefined || other === undefined) return [...rows];
  return rows.map((current, at) => (at === index ? other : at === index + by ? row : current));
}

/** What every section editor gets: its part of the form, and the error of any field path. */
export interface SectionProps<T> {
  value: T;
  onChange: (value: T) => void;
  errorAt: (path: string) => string | undefined;
  readOnly: boolean;
}
