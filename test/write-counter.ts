// Every row write and every stored object, counted: what tests read before and after a request that must change
// nothing (a refusal, a read).
import { env } from "cloudflare:workers";

/**
 * Counts every row inserted, deleted or changed in any table, with a trigger per table and operation, so a request that
 * changes nothing leaves the count as it was (an UPDATE that rewrites a row with its own values is not a change). FTS
 * tables are left out: their shadow tables are written only by triggers on orders. api_keys.last_used_at is the key's
 * use, written at most once a minute after any request (DECISIONS): not counted.
 */
export async function installWriteCounter(): Promise<string[]> {
  await removeWriteCounter();
  await env.DB.prepare("CREATE TABLE property_row_writes (n INTEGER NOT NULL, audit INTEGER NOT NULL)").run();
  await env.DB.prepare("INSERT INTO property_row_writes (n, audit) VALUES (0, 0)").run();
  const { results } = await env.DB.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'table'").all<{
    name: string;
    sql: string;
  }>();
  const virtual = results.filter((t) => /^CREATE VIRTUAL TABLE/i.test(t.sql)).map((t) => t.name);
  const tables = results
    .map((t) => t.name)
    .filter((name) => !/^(sqlite_|_cf_|d1_)/.test(name) && name !== "property_row_writes")
    .filter((name) => !virtual.some((v) => name === v || name.startsWith(`${v}_`)));
  for (const table of tables) {
    for (const operation of ["INSERT", "UPDATE", "DELETE"]) {
      let when = "";
      if (operation === "UPDATE") {
        const columns = await env.DB.prepare("SELECT name FROM pragma_table_info(?)").bind(table).all<{ name: string }>();
        when = `WHEN ${columns.results
          .filter((c) => !(table === "api_keys" && c.name === "last_used_at"))
          .map((c) => `OLD.${c.name} IS NOT NEW.${c.name}`)
          .join(" OR ")}`;
      }
      // Audit events apart: a staff member's read of a document is recorded, so a read may write those.
      const column = table === "audit_events" ? "audit" : "n";
      await env.DB.prepare(
        `CREATE TRIGGER property_count_${table}_${operation.toLowerCase()} AFTER ${operation} ON ${table} ${when} ` +
          `BEGIN UPDATE property_row_writes SET ${column} = ${column} + 1; END`,
      ).run();
    }
  }
  return tables;
}

/**
 * Drops the counter and its triggers: the files that run after in the same workerd share its database, and some count
 * the rows a request writes.
 */
export async function removeWriteCounter(): Promise<void> {
  const { results } = await env.DB.prepare(
    "SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'property\\_count\\_%' ESCAPE '\\'",
  ).all<{ name: string }>();
  await env.DB.batch([
    ...results.map(({ name }) => env.DB.prepare(`DROP TRIGGER "${name}"`)),
    env.DB.prepare("DROP TABLE IF EXISTS property_row_writes"),
  ]);
}

/**
 * Rows written so far (audit events apart) and every object in the bucket: equal before and after a request that
 * changed nothing.
 */
export async function storageFingerprint(): Promise<{ rowWrites: number; auditWrites: number; objects: string[] }> {
  const listObjects = async () => {
    const objects: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await env.DOCUMENTS.list({ cursor });
      objects.push(...page.objects.map((o) => `${o.key} ${o.etag}`));
      cursor = page.truncated ? page.cursor : undefined;
    } while (cursor);
    return objects;
  };
  const [counted, objects] = await Promise.all([
    env.DB.prepare("SELECT n, audit FROM property_row_writes").first<{ n: number; audit: number }>(),
    listObjects(),
  ]);
  return { rowWrites: counted?.n ?? -1, auditWrites: counted?.audit ?? -1, objects };
}
