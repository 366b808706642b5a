// The project's D1 migrations applied to a local database that wrangler's platform proxy opened, recorded in the
// table `wrangler d1 migrations apply` keeps (d1_migrations), so wrangler's commands and this agree on what is applied.
// wrangler's own local apply starts a Miniflare for each migration (about a second each); here one proxy applies them
// all, each migration with its record in one batch, as wrangler's test harness applies them.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { unstable_splitSqlQuery } from "wrangler";
import { ROOT } from "./local-dev.ts";

/** wrangler.toml's migrations_dir. */
const MIGRATIONS = path.join(ROOT, "migrations");

/** Applies the migrations the database has not had, in order; their names. */
export async function applyLocalMigrations(db: D1Database): Promise<string[]> {
  // wrangler's table, as it creates it.
  await db
    .prepare(`CREATE TABLE IF NOT EXISTS d1_migrations(
		id         INTEGER PRIMARY KEY AUTOINCREMENT,
		name       TEXT UNIQUE,
		applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL
);`)
    .run();
  const { results } = await db.prepare("SELECT name FROM d1_migrations").all<{ name: string }>();
  const applied = new Set(results.map((row) => row.name));
  const pending = readdirSync(MIGRATIONS)
    .filter((name) => name.endsWith(".sql") && !applied.has(name))
    .sort();
  for (const name of pending) {
    const statements = unstable_splitSqlQuery(readFileSync(path.join(MIGRATIONS, name), "utf8"));
    await db.batch([
      ...statements.map((statement) => db.prepare(statement)),
      db.prepare("INSERT INTO d1_migrations (name) VALUES (?)").bind(name),
    ]);
  }
  return pending;
}
