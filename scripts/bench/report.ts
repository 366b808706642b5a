// The benchmark's figures as printed and written: each measured scenario with its goal's misses, the per-account
// scenarios at each account size side by side, and the bytes an order costs on disk.
import type { Size } from "./dataset.ts";
import type { Goal } from "./scenarios.ts";
import type { OrderStorage } from "./storage-floor.ts";

export interface Measured {
  name: string;
  /** The account size a per-account scenario ran at. */
  size?: Size;
  requestsPerSecond: number;
  share: number;
  p50: number;
  p99: number;
  errors: number;
  d1CallsPerRequest: number | null;
  rowsReadPerRequest: number | null;
  d1MsPerRequest: number | null;
  sqliteMs: number | null;
  goal: Goal | undefined;
  missed: string[];
}

export function goalMisses(m: Omit<Measured, "missed">): string[] {
  const misses: string[] = [];
  const goal = m.goal;
  if (!goal) return misses;
  if (goal.minShare !== undefined && m.share < goal.minShare) misses.push(`share < ${goal.minShare}`);
  if (goal.maxRowsRead !== undefined && (m.rowsReadPerRequest ?? Infinity) > goal.maxRowsRead)
    misses.push(`rows > ${goal.maxRowsRead}`);
  if (goal.maxSqliteMs !== undefined && (m.sqliteMs ?? Infinity) > goal.maxSqliteMs)
    misses.push(`SQLite > ${goal.maxSqliteMs} ms`);
  if (goal.maxD1Ms !== undefined && (m.d1MsPerRequest ?? Infinity) > goal.maxD1Ms) misses.push(`D1 > ${goal.maxD1Ms} ms`);
  return misses;
}

const fmt = (value: number | null | undefined, digits = 1) =>
  value === null || value === undefined ? "-" : value.toFixed(digits);

/** Columns padded to their widest cell: the first and last left-aligned, the rest right-aligned. */
function printColumns(header: string[], table: string[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...table.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 || i === cells.length - 1 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ");
  console.log(line(header));
  for (const row of table) console.log(line(row));
}

const goalMark = (m: Measured) => (m.goal ? (m.missed.length ? `MISSED: ${m.missed.join(", ")}` : "met") : "");

export function printTable(rows: Measured[]): void {
  const header = ["scenario", "req/s", "share", "p50 ms", "p99 ms", "errors", "D1 calls", "rows read", "D1 ms", "SQLite ms"];
  printColumns(
    [...header, "goal"],
    rows.map((m) => [
      m.size ? `${m.name} [${m.size}]` : m.name,
      fmt(m.requestsPerSecond, 0),
      fmt(m.share, 2),
      fmt(m.p50, 0),
      fmt(m.p99, 0),
      String(m.errors),
      fmt(m.d1CallsPerRequest, 1),
      fmt(m.rowsReadPerRequest, 0),
      fmt(m.d1MsPerRequest, 2),
      fmt(m.sqliteMs, 2),
      goalMark(m),
    ]),
  );
}

/** A per-account scenario's figures at each size it ran at, smallest first. */
export interface SideBySide {
  name: string;
  goal: Goal | undefined;
  bySize: Partial<Record<Size, Pick<Measured, "share" | "rowsReadPerRequest" | "sqliteMs" | "missed">>>;
}

export function sideBySide(rows: Measured[], sizes: readonly Size[]): SideBySide[] {
  const byName = new Map<string, SideBySide>();
  for (const m of rows) {
    if (!m.size) continue;
    const entry = byName.get(m.name) ?? { name: m.name, goal: m.goal, bySize: {} };
    entry.bySize[m.size] = { share: m.share, rowsReadPerRequest: m.rowsReadPerRequest, sqliteMs: m.sqliteMs, missed: m.missed };
    byName.set(m.name, entry);
  }
  return [...byName.values()].filter((entry) => sizes.some((size) => entry.bySize[size]));
}

const goalText = (goal: Goal | undefined) =>
  [
    goal?.minShare !== undefined ? `≥ ${goal.minShare}` : "",
    goal?.maxRowsRead !== undefined ? `≤ ${goal.maxRowsRead} rows` : "",
    goal?.maxSqliteMs !== undefined ? `≤ ${goal.maxSqliteMs} ms` : "",
  ]
    .filter(Boolean)
    .join(", ");

/** Share, rows read and storage floor at each size; a figure that misses its goal is marked with a `!`. */
export function printSideBySide(entries: SideBySide[], sizes: readonly Size[]): void {
  const at = (entry: SideBySide, size: Size) => entry.bySize[size];
  const marked = (text: string, missed: boolean) => (missed ? `${text}!` : `${text} `);
  const cells = (entry: SideBySide, size: Size) => {
    const m = at(entry, size);
    const misses = m?.missed ?? [];
    return [
      marked(
        fmt(m?.share, 2),
        misses.some((miss) => miss.startsWith("share")),
      ),
      marked(
        fmt(m?.rowsReadPerRequest, 0),
        misses.some((miss) => miss.startsWith("rows")),
      ),
      marked(
        fmt(m?.sqliteMs, 2),
        misses.some((miss) => miss.startsWith("SQLite")),
      ),
    ];
  };
  const header = ["scenario", "goal"];
  for (const part of ["share", "rows read", "floor ms"]) for (const size of sizes) header.push(`${part} ${size}`);
  const table = entries.map((entry) => {
    const bySize = sizes.map((size) => cells(entry, size));
    return [
      entry.name,
      goalText(entry.goal),
      ...[0, 1, 2].flatMap((part) => bySize.map((c) => c[part]!)),
      sizes.map((size) => `${size} ${at(entry, size)?.missed.length ? "MISSED" : "met"}`).join(", "),
    ];
  });
  printColumns([...header, "goal at each size"], table);
}

export function printOrderStorage(storage: OrderStorage): void {
  console.log(
    `\norder storage: ${storage.orders.toLocaleString("en-US")} orders, ${storage.bytesPerOrder.toFixed(0)} bytes each on disk`,
  );
  printColumns(
    ["part", "bytes per order", ""],
    storage.parts
      .toSorted((a, b) => b.bytesPerOrder - a.bytesPerOrder)
      .map((part) => [part.name, part.bytesPerOrder.toFixed(1), ""]),
  );
}
