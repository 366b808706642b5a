// The Drizzle client over D1; created once per request by middleware and read as c.var.db.
import { drizzle } from "drizzle-orm/d1";
import * as schema from "./schema.ts";

export function createDatabase(d1: D1Database) {
  return drizzle(d1, { schema });
}

export type Database = ReturnType<typeof createDatabase>;
