// The Drizzle client over the request's D1 session.
import { drizzle } from "drizzle-orm/d1";

export function createDatabase(d1: D1Database) {
  // No relational schema: every query goes through the query builder, so building a client costs next to nothing.
  return drizzle(d1);
}

export type Database = ReturnType<typeof createDatabase>;
