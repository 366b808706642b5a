// A D1 batch (one transaction) whose statements are named: written in the order they run, answered by name, so no
// caller counts positions (`const [, [row], , deliveries]`). And the one way to follow a guarded write with what it
// records only if it wrote, which depends on the two standing together in the batch.
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
 * A guarded write, then what it records only if it wrote: `follow` gets the condition, and the count of rows written
 * (SQLite's changes(), which counts the rows of the last completed INSERT, UPDATE or DELETE, not those its triggers
 * wrote), and its statements stand right after the write in the batch, where both speak of it. No other statement
 * can come between.
 */
export function ifWritten<W extends Statement, F extends Statements>(
  write: W,
  follow: (written: SQL, rowsWritten: SQL) => F,
): { write: W } & F {
  return { write, ...follow(sql`changes() > 0`, sql`changes()`) };
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
