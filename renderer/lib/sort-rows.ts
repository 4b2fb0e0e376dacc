// How the dashboard's tables sort a column: numbers by value, text in the locale's order, cells
// without a value last in either direction, ties in the order the rows came.

/** A cell's sort key; undefined for an empty cell. */
export type SortValue = number | string | undefined;

/** `rows` sorted by `value`, ascending or descending; empty cells last either way; a stable sort. */
export function sortByValue<T>(rows: readonly T[], value: (row: T) => SortValue, dir: 'asc' | 'desc'): T[] {
  const sign = dir === 'asc' ? 1 : -1;
  return rows
    .map((r, i) => ({ r, i, v: value(r) }))
    .sort((a, b) => {
      if (a.v === undefined || b.v === undefined) return a.v === b.v ? a.i - b.i : a.v === undefined ? 1 : -1;
      const c = typeof a.v === 'number' && typeof b.v === 'number' ? a.v - b.v : String(a.v).localeCompare(String(b.v));
      return c !== 0 ? sign * c : a.i - b.i;
    })
    .map((x) => x.r);
}
