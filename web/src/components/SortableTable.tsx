// A data table with sortable columns: <th scope="col"> headers holding buttons, aria-sort on the
// sorted one, nulls always last. Sort state lives with the caller (in the URL).
import type { ComponentChildren } from 'preact';

export interface Column<T> {
  key: string;
  label: ComponentChildren;
  /** Longer name for the header's tooltip. */
  title?: string;
  value: (row: T) => number | string | null | undefined;
  cell?: (row: T) => ComponentChildren;
  /** Exact value for the cell's tooltip. */
  exact?: (row: T) => string;
  numeric?: boolean;
  /** The cell that names the row: a <th scope="row">. */
  rowHeader?: boolean;
}

export type Dir = 'asc' | 'desc';

export function sortRows<T>(rows: T[], col: Column<T> | undefined, dir: Dir): T[] {
  if (!col) return rows;
  const sign = dir === 'asc' ? 1 : -1;
  return rows
    .map((row, i) => ({ row, i, v: col.value(row) }))
    .sort((a, b) => {
      const an = a.v === null || a.v === undefined;
      const bn = b.v === null || b.v === undefined;
      if (an || bn) return an === bn ? a.i - b.i : an ? 1 : -1;
      const c = typeof a.v === 'number' && typeof b.v === 'number' ? a.v - b.v : String(a.v).localeCompare(String(b.v));
      return c !== 0 ? sign * c : a.i - b.i;
    })
    .map((x) => x.row);
}

interface Props<T> {
  caption: ComponentChildren;
  columns: Column<T>[];
  rows: T[];
  rowKey: (row: T) => string;
  sort: string;
  dir: Dir;
  onSort: (key: string, dir: Dir) => void;
  rowClass?: (row: T) => string;
  id?: string;
}

export function SortableTable<T>({ caption, columns, rows, rowKey, sort, dir, onSort, rowClass, id }: Props<T>) {
  const sorted = sortRows(
    rows,
    columns.find((c) => c.key === sort),
    dir,
  );
  return (
    <div class="table-wrap">
      <table id={id}>
        <caption>{caption}</caption>
        <colgroup>
          {columns.map((c) => (
            <col key={c.key} class={`col-${c.key}${c.numeric ? ' col-num' : ''}`} />
          ))}
        </colgroup>
        <thead>
          <tr>
            {columns.map((c) => {
              const active = c.key === sort;
              const next: Dir = active && dir === 'asc' ? 'desc' : active ? 'asc' : c.numeric ? 'desc' : 'asc';
              return (
                <th
                  key={c.key}
                  scope="col"
                  class={c.numeric ? 'num' : undefined}
                  title={c.title}
                  aria-sort={active ? (dir === 'asc' ? 'ascending' : 'descending') : undefined}
                >
                  <button type="button" data-sort={c.key} onClick={() => onSort(c.key, next)}>
                    {c.label}
                    <span class="sort-mark" aria-hidden="true">
                      {active ? (dir === 'asc' ? ' ▲' : ' ▼') : ''}
                    </span>
                  </button>
                </th>
              );
            })}
          </tr>
        </thead>
        <tbody>
          {sorted.map((row) => (
            <tr key={rowKey(row)} class={rowClass?.(row)} data-key={rowKey(row)}>
              {columns.map((c) => {
                const Cell = c.rowHeader ? 'th' : 'td';
                return (
                  <Cell
                    key={c.key}
                    scope={c.rowHeader ? 'row' : undefined}
                    class={c.numeric ? 'num' : undefined}
                    data-col={c.key}
                    title={c.exact?.(row)}
                  >
                    {c.cell ? c.cell(row) : (c.value(row) ?? '–')}
                  </Cell>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
