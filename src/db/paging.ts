// Paging, sorting and per-status counts shared by list queries.
import { type AnyColumn, asc, desc, type SQL, sql } from "drizzle-orm";

export type SortDirection = "asc" | "desc";

/** One page of a list: which page, how many items, and how many items come before it. */
export interface PageWindow {
  page: number;
  limit: number;
  offset: number;
}

export function pageWindow(page: number, limit: number): PageWindow {
  return { page, limit, offset: (page - 1) * limit };
}

/**
 * ORDER BY for a list: the key in the asked direction, then the id in the same direction, so the order is total
 * and paging never repeats or skips a row. A nullable key puts NULLs last either way: SQLite sorts NULL lowest, so
 * descending needs nothing more, and ascending sorts on `key IS NULL` first (the form an index can serve).
 */
export function stableOrder(
  sort: { key: AnyColumn | SQL; nullable: boolean },
  id: AnyColumn | SQL,
  direction: SortDirection,
): SQL[] {
  const by = direction === "asc" ? asc : desc;
  const nullsLast = sort.nullable && direction === "asc" ? [sql`(${sort.key} IS NULL)`] : [];
  return [...nullsLast, by(sort.key), by(id)];
}

/**
 * From row counts by status over every filter but status (several rows may share a status): the counts with every
 * status present (zero where no row has it), and the list's total, the sum over the statuses the status filter
 * keeps (all when absent).
 */
export function countByStatus<S extends string>(
  statuses: readonly S[],
  rows: readonly { status: S; count: number }[],
  statusFilter: readonly S[] | undefined,
): { statusCounts: Record<S, number>; total: number } {
  const statusCounts = Object.fromEntries(statuses.map((status) => [status, 0])) as Record<S, number>;
  for (const row of rows) statusCounts[row.status] += row.count;
  const total = (statusFilter ?? statuses).reduce((sum, status) => sum + statusCounts[status], 0);
  return { statusCounts, total };
}
