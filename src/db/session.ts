// One D1 session per request (the Sessions API, so reads can be served by replicas), with the request's D1 usage.
import { createDatabase, type Database } from "./client.ts";

/** What a request cost on D1, summed over every statement from D1's result `meta`. */
export interface D1Usage {
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
const READ_METHODS = new Set(["GET", "HEAD"]);

export interface RequestSession {
  db: Database;
  usage: D1Usage;
  /** The newest bookmark the session has seen, or null before its first query. */
  bookmark(): string | null;
}

/**
 * Reads start on the nearest replica (`first-unconstrained`), writes on the primary (`first-primary`); a client's
 * bookmark from an earlier response wins over both, so a client always reads its own writes.
 */
export function openRequestSession(d1: D1Database, method: string, bookmark: string | undefined): RequestSession {
  const session = d1.withSession(bookmark ?? (READ_METHODS.has(method) ? "first-unconstrained" : "first-primary"));
  const usage: D1Usage = { calls: 0, rowsRead: 0, rowsWritten: 0, durationMs: 0 };
  return { db: createDatabase(meteredSession(session, usage)), usage, bookmark: () => session.getBookmark() };
}

function record(usage: D1Usage, metas: readonly D1Meta[]): void {
  usage.calls++;
  for (const meta of metas) {
    usage.rowsRead += meta.rows_read;
    usage.rowsWritten += meta.rows_written;
    usage.durationMs += meta.duration;
  }
}

/**
 * The statement of a metered session. `raw()` is answered from `all()`, whose result carries `meta` (D1's own
 * `raw()` drops it); rows come back as objects keyed by column name, so every query must name its result columns
 * uniquely, as Drizzle's batches already require.
 */
class MeteredStatement {
  constructor(
    readonly statement: D1PreparedStatement,
    private readonly usage: D1Usage,
  ) {}

  bind(...values: unknown[]): MeteredStatement {
    return new MeteredStatement(this.statement.bind(...values), this.usage);
  }

  async run(): Promise<D1Result> {
    const result = await this.statement.run();
    record(this.usage, [result.meta]);
    return result;
  }

  async all(): Promise<D1Result> {
    const result = await this.statement.all();
    record(this.usage, [result.meta]);
    return result;
  }

  async raw(): Promise<unknown[][]> {
    const { results } = await this.all();
    return results.map((row) => Object.values(row as Record<string, unknown>));
  }
}

/** The part of a D1 database that Drizzle's D1 driver calls: prepare() and batch(). */
function meteredSession(session: D1DatabaseSession, usage: D1Usage): D1Database {
  const metered = {
    prepare: (query: string) => new MeteredStatement(session.prepare(query), usage),
    batch: async (statements: MeteredStatement[]) => {
      const results = await session.batch(statements.map((s) => s.statement));
      record(
        usage,
        results.map((r) => r.meta),
      );
      return results;
    },
  };
  // Drizzle types its client as a D1Database but uses only prepare() and batch(), which a session has.
  return metered as unknown as D1Database;
}
