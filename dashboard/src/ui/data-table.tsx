/** A list table: scrolls sideways on narrow screens, headed by its column names. */
import type { ComponentChildren } from 'preact';
import { TableHead, type TableHeadProps } from './table-head.js';

/** Props of {@link DataTable}. */
export interface DataTableProps extends TableHeadProps {
  /** The table's `data-testid`, when the tests look for it. */
  testid?: string;
  /** A `<caption>` element, placed before the header. */
  caption?: ComponentChildren;
  /** The body's rows. */
  children: ComponentChildren;
}

/** A wrapped table with a header row and `children` as its body. */
export function DataTable({ columns, actions, testid, caption, children }: DataTableProps) {
  return (
    <div class="table-wrap">
      <table data-testid={testid}>
        {caption}
        <TableHead columns={columns} actions={actions} />
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}
