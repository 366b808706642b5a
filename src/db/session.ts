// One D1 session per request (Sessions API, so reads can use replicas), tracking D1 usage and letting a small statement
// ride with the request's next D1 call instead of costing its own round trip.
import { createDatabase, type Database } from "./client.ts";

/** What a request cost on D1, summed over every statement from D1's result `meta`. */
interface D1Usage {
  /** Calls to D1: each one is a network round trip in production (a batch is one call). */
  calls: number;
  rowsRead: number;
  rowsWritten: number;
  /** SQL time inside D1, in milliseconds. */
  durationMs: number;
}

/**
 * A D1 bookmark, as D1 hands them out ("00000085-0000024c-00004c6d-8e61117bf38d7adb71b934ebbf891683").
 * Anything else in `x-d1-bookmark` is refused, so a client typo is a 400 rather than a D1 error.
 */
export const BOOKMARK_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{32}$/;

/** Methods that only read: their first query may go to any replica. */
export const READ_METHODS: ReadonlySet<string> = new Set(["GET", "HEAD"]);

/** A statement riding with the request's next D1 call. */
interface Passenger {
  /**
   * Its rows, each as the values of its columns in select order. Sent alone now if no call has carried it yet, and
   * again alone if the batch that carried it failed (the failure may have been another statement's).
   */
  rows(): Promise<unknown[][]>;
}

export interface RequestSession {
  db: Database;
  /**
   * Starts the session from a client's bookmark instead: only before its first query (the API's bookmark middleware
   * runs before anything reads).
   */
  startFrom(bookmark: string): void;
  usage: D1Usage;
  /** The newest bookmark the session has seen, or null before its first query. */
  bookmark(): string | null;
  /**
   * Puts a statement in front of the next D1 call's batch, so it costs no round trip of its own. A batch is one
   * transaction: a statement that fails rolls back everything after it in the batch.
   */
  carry(query: { toSQL(): { sql: string; params: unknown[] } }): Passenger;
  /**
   * Awaits `confirm` (once) before every D1 call after the request's first, and with `beforeWrites` before a first call
   * that writes too (a read's check, which cannot fail a write it rides with): when it throws, that call and every
   * later one fail with its error without reaching D1. A passenger's own calls (see Passenger) are not held back.
   */
  confirmBeforeLaterCalls(confirm: () => Promise<void>, options?: { beforeWrites: boolean }): void;
}

/**
 * Reads start on the nearest replica (`first-unconstrained`), writes on the primary (`first-primary`); a client's
 * bookmark from an earlier response wins over both, so a client always reads its own writes. The D1 session is opened
 * at the first query, so the bookmark may be given until then.
 */
export function openRequestSession(d1: D1Database, method: string): RequestSession {
  let start = READ_METHODS.has(method) ? "first-unconstrained" : "first-primary";
  let opened: D1DatabaseSession | undefined;
  const metered = new MeteredSession(() => {
    opened ??= d1.withSession(start);
    return opened;
  });
  return {
    db: createDatabase(metered.asD1Database()),
    usage: metered.usage,
    startFrom: (bookmark) => {
      if (opened) throw new Error("the D1 session is open already: its bookmark can no longer change");
      start = bookmark;
    },
    bookmark: () => opened?.getBookmark() ?? null,
    carry: (query) => metered.carry(query.toSQL()),
    confirmBeforeLaterCalls: (confirm, options) => metered.confirmBeforeLaterCalls(confirm, options?.beforeWrites ?? false),
  };
}

interface Boarding {
  statement: D1PreparedStatement;
  arrived(result: D1Result): void;
  lost(error: unknown): void;
}

function valueRows(result: D1Result): unknown[][] {
  return result.results.map((row) => Object.values(row as Record<string, unknown>));
}

/**
 * The session as Drizzle sees it, counting every call. Statements are answered from `batch()`, whose results carry
 * `meta` (D1's own `raw()` drops it); rows come back as objects keyed by column name, so every query must name its
 * result columns uniquely, as Drizzle's batches already require.
 */
class MeteredSession {
  readonly usage: D1Usage = {
    calls: 0,
    rowsRead: 0,
    rowsWritten: 0,
    durationMs: 0,
  };
  private boarding: Boarding[] = [];
  private firstCallMade = false;
  private confirm: (() => Promise<void>) | undefined;
  private confirmWrites = false;
  private confirmation: Promise<void> | undefined;

  /** The D1 session, opened when first asked for. */
  private readonly open: () => D1DatabaseSession;

  constructor(open: () => D1DatabaseSession) {
    this.open = open;
  }

  private get session(): D1DatabaseSession {
    return this.open();
  }

  carry(query: { sql: string; params: unknown[] }): Passenger {
    const statement = this.session.prepare(query.sql).bind(...query.params);
    let boarding!: Boarding;
    const arrival = new Promise<D1Result>((arrived, lost) => {
      boarding = { statement, arrived, lost };
    });
    // A failure is reported to whoever asks for the rows, not as an unhandled rejection.
    arrival.catch(() => undefined);
    this.boarding.push(boarding);
    return {
      rows: async () => {
        if (this.boarding.includes(boarding)) await this.send([]);
        const result = await arrival.catch(async () => {
          const [alone] = await this.send([statement]);
          return alone!;
        });
        return valueRows(result);
      },
    };
  }

  confirmBeforeLaterCalls(confirm: () => Promise<void>, beforeWrites: boolean): void {
    this.confirm = confirm;
    this.confirmWrites = beforeWrites;
  }

  /**
   * One D1 call: the statements, after the passengers waiting for a ride; after the first, once confirmed, and so is a
   * first one that writes when the confirmation must come before writes.
   */
  async execute(statements: MeteredStatement[]): Promise<D1Result[]> {
    if (this.confirm && (this.firstCallMade || (this.confirmWrites && statements.some((s) => s.writes)))) {
      this.confirmation ??= this.confirm();
      await this.confirmation;
    }
    return this.send(statements.map((s) => s.statement));
  }

  private async send(statements: D1PreparedStatement[]): Promise<D1Result[]> {
    this.firstCallMade = true;
    const boarding = this.boarding;
    this.boarding = [];
    let results: D1Result[];
    try {
      results = await this.session.batch([...boarding.map((b) => b.statement), ...statements]);
    } catch (error) {
      this.usage.calls++;
      for (const passenger of boarding) passenger.lost(error);
      throw error;
    }
    this.usage.calls++;
    for (const { meta } of results) {
      this.usage.rowsRead += meta.rows_read;
      this.usage.rowsWritten += meta.rows_written;
      this.usage.durationMs += meta.duration;
    }
    for (const [i, passenger] of boarding.entries()) passenger.arrived(results[i]!);
    return results.slice(boarding.length);
  }

  /** The part of a D1 database that Drizzle's D1 driver calls: prepare() and batch(). */
  asD1Database(): D1Database {
    const metered = {
      prepare: (query: string) => new MeteredStatement(this.session.prepare(query), this, !READ_ONLY.test(query)),
      batch: (statements: MeteredStatement[]) => this.execute(statements),
    };
    // Drizzle types its client as a D1Database but uses only prepare() and batch(), which a session has.
    return metered as unknown as D1Database;
  }
}

/** A statement that only reads: a SELECT (the queries use no WITH); anything else is taken to write. */
const READ_ONLY = /^\s*select\b/i;

class MeteredStatement {
  readonly statement: D1PreparedStatement;
  private readonly session: MeteredSession;
  /** Whether it may write (any statement but a SELECT). */
  readonly writes: boolean;

  constructor(statement: D1PreparedStatement, session: MeteredSession, writes: boolean) {
    this.statement = statement;
    this.session = session;
    this.writes = writes;
  }

  bind(...values: unknown[]): MeteredStatement {
    return new MeteredStatement(this.statement.bind(...values), this.session, this.writes);
  }

  async run(): Promise<D1Result> {
    const [result] = await this.session.execute([this]);
    return result!;
  }

  all(): Promise<D1Result> {
    return this.run();
  }

  async raw(): Promise<unknown[][]> {
    return valueRows(await this.run());
  }
}
