// D1 batches (one transaction each) with named statements, so callers never index results by position; writes with
// ordered phases, so statement order is enforced by types rather than by object-key order.
import { type SQL, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Database } from "./client.ts";

export type Statement = BatchItem<"sqlite">;

/** Named statements, in the order they run; a group of them (a nested record) runs where it stands; undefined is skipped. */
export interface Statements {
  readonly [name: string]: Statement | Statements | undefined;
}

type ResultOf<S> = S extends Statement ? S["_"]["result"] : S extends Statements ? Results<S> : never;

/** Each statement's result under its name (undefined for a statement that was undefined, so not run). */
export type Results<T extends Statements> = {
  [K in keyof T]: ResultOf<NonNullable<T[K]>> | (undefined extends T[K] ? undefined : never);
};

function isStatement(value: Statement | Statements): value is Statement {
  return typeof (value as { toSQL?: unknown }).toSQL === "function";
}

/**
 * Runs the statements as one batch in the order they are written (an object's keys keep it; a key that reads as an
 * array index would not, and is refused), and answers each one's result by its name.
 */
export async function batchByName<T extends Statements>(db: Database, statements: T): Promise<Results<T>> {
  const flat: Statement[] = [];
  const place = (group: Statements): (() => unknown) => {
    const entries = Object.entries(group).map(([name, value]) => {
      if (/^\d+$/.test(name)) throw new Error(`batch statement name "${name}" would run out of its written order`);
      if (value === undefined) return [name, () => undefined] as const;
      if (typeof value === "function") throw new Error(`batch statement "${name}" is a function, not a statement`);
      if (value instanceof BeforeWrite)
        throw new Error(`batch statement "${name}" reads the row before a write: put it in writeInPhases' before`);
      if (!isStatement(value)) return [name, place(value)] as const;
      const at = flat.push(value) - 1;
      return [name, () => results[at]] as const;
    });
    return () => Object.fromEntries(entries.map(([name, read]) => [name, read()]));
  };
  const answer = place(statements);
  const [first, ...rest] = flat;
  if (!first) throw new Error("a batch needs at least one statement");
  const results: unknown[] = await db.batch([first, ...rest]);
  return answer() as Results<T>;
}

/**
 * A statement that reads the row as the write after it finds it (an audit event's "before" values). Only the `before`
 * phase of writeInPhases takes one: it is no Statement, so a batch or another phase refuses it.
 */
export class BeforeWrite<S extends Statement = Statement> {
  readonly statement: S;
  constructor(statement: S) {
    this.statement = statement;
  }
}

/** The `before` phase: statements that read the state the write starts from. */
export interface BeforeStatements {
  readonly [name: string]: BeforeWrite | Statement | Statements | undefined;
}

type Unwrapped<T> = T extends BeforeWrite<infer S> ? S : T;

type NoStatements = Record<never, never>;

/**
 * A write and the statements whose correctness depends on standing before or after it, in named phases that run in
 * this order whatever the order they are written in:
 * - `before`: what reads the state the write starts from (an audit event's values changed from, under the write's
 *   own guard);
 * - `write`: the write;
 * - `record`: the one statement that may read whether it wrote (`written`, SQLite's `changes() > 0`) or how many rows
 *   (`rowsWritten`, `changes()`: the rows of the last completed INSERT, UPDATE or DELETE, not its triggers'). Only
 *   the statement right after the write sees its count: a statement that writes resets it for the ones after. Not
 *   for a write whose triggers write an FTS5 table (an INSERT or DELETE of orders or stock_numbers): D1's SQLite
 *   counts the index's own writes there, so such a check counts the rows it expects instead;
 * - `after`: what reads the state the write and its record left (an event's deliveries read the event's row), never
 *   changes().
 */
export function writeInPhases<
  W extends Statement,
  B extends BeforeStatements = NoStatements,
  R extends Statement | undefined = undefined,
  A extends Statements = NoStatements,
>(phases: {
  before?: B;
  write: W;
  record?: ((written: SQL, rowsWritten: SQL) => R) | undefined;
  after?: A;
}): { before: { [K in keyof B]: Unwrapped<B[K]> }; write: W; record: R | undefined; after: A } {
  const before = Object.fromEntries(
    Object.entries(phases.before ?? {}).map(([name, value]) => [name, value instanceof BeforeWrite ? value.statement : value]),
  ) as { [K in keyof B]: Unwrapped<B[K]> };
  const record = phases.record?.(sql`changes() > 0`, sql`changes()`);
  if (record !== undefined && !isStatement(record)) throw new Error("a write's record is one statement: the one right after it");
  return { before, write: phases.write, record, after: phases.after ?? ({} as A) };
}

/** A page of rows and the count of all rows that match, in one batch. */
export async function pageAndTotal<P extends Statement, T extends Statement & { _: { result: { total: number }[] } }>(
  db: Database,
  page: P,
  totals: T,
): Promise<{ rows: P["_"]["result"]; total: number }> {
  const { rows, counted } = await batchByName(db, { rows: page, counted: totals });
  return { rows, total: (counted as { total: number }[])[0]!.total };
}
