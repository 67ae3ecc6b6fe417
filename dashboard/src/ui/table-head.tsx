/** A table's header row: one column heading per name. */

/** Props of {@link TableHead}. */
export interface TableHeadProps {
  /** The visible column headings, in order. */
  columns: readonly string[];
  /** Adds a last column for per-row buttons, its heading read only by screen readers. */
  actions?: boolean;
}

/** The `<thead>` of a table. */
export function TableHead({ columns, actions }: TableHeadProps) {
  return (
    <thead>
      <tr>
        {columns.map((c) => (
          <th key={c} scope="col">
            {c}
          </th>
        ))}
        {actions && (
          <th scope="col">
            <span class="sr-only">Actions</span>
          </th>
        )}
      </tr>
    </thead>
  );
}
