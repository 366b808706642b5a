// Batches whose correctness depends on statement order say it in writeInPhases' named phases (src/db/batch.ts), and
// the types refuse the wrong order: a second reader of the write's count, an audit of the row before its write placed
// anywhere but before it. `npm run check` (tsc) holds each @ts-expect-error below; the runtime checks hold JavaScript
// that goes around the types.
import { env } from "cloudflare:workers";
import { eq, type SQL, sql } from "drizzle-orm";
import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { beforeAll, describe, expect, it } from "vitest";
import { auditBeforeWrite } from "../src/db/audit.ts";
import { batchByName, writeInPhases } from "../src/db/batch.ts";
import { createDatabase } from "../src/db/client.ts";
import { insertSelection } from "../src/db/sql.ts";

const probes = sqliteTable("batch_phase_probes", { key: text("key").primaryKey(), value: integer("value").notNull() });
const records = sqliteTable("batch_phase_records", { key: text("key").notNull(), what: text("what").notNull() });

const db = createDatabase(env.DB);

beforeAll(async () => {
  await env.DB.batch([
    env.DB.prepare("CREATE TABLE IF NOT EXISTS batch_phase_probes (key TEXT PRIMARY KEY, value INTEGER NOT NULL)"),
    env.DB.prepare("CREATE TABLE IF NOT EXISTS batch_phase_records (key TEXT NOT NULL, what TEXT NOT NULL)"),
  ]);
});

/** A row of `records` for `key`, written where `when` holds. */
function recordWhere(key: string, what: string, when: SQL) {
  return db.insert(records).select(db.select(insertSelection({ key, what })).from(sql`(SELECT 1)`).where(when));
}

async function recorded(key: string): Promise<string[]> {
  const rows = await db.select({ what: records.what }).from(records).where(eq(records.key, key));
  return rows.map((row) => row.what).sort();
}

const audit = { actor: { type: "token" } as const, requestId: "batch-phases", now: 0 };

describe("a write in phases", () => {
  it("records only when the write wrote, in the slot right after it, whatever the order the phases are written in", async () => {
    const key = crypto.randomUUID();
    const insertOnce = () =>
      batchByName(db, {
        probe: writeInPhases({
          after: { event: db.insert(records).values({ key, what: "after" }) },
          record: (written) => recordWhere(key, "written", written),
          write: db.insert(probes).values({ key, value: 1 }).onConflictDoNothing().returning(),
          before: { seen: db.select().from(probes).where(eq(probes.key, key)) },
        }),
      });
    const first = await insertOnce();
    expect(first.probe.before.seen).toEqual([]);
    expect(first.probe.write).toEqual([{ key, value: 1 }]);
    const second = await insertOnce();
    expect(second.probe.before.seen).toEqual([{ key, value: 1 }]);
    expect(second.probe.write).toEqual([]);
    // One "written" (the first insert's), and an "after" each time.
    expect(await recorded(key)).toEqual(["after", "after", "written"]);
  });

  it("is needed: a statement that writes after the write resets its count for the ones after", async () => {
    const key = crypto.randomUUID();
    // A write that writes nothing, a statement that writes, then a second reader of changes(): it reads the first
    // follower's count, not the write's. writeInPhases hands the condition to one statement only.
    await batchByName(db, {
      nothing: db.update(probes).set({ value: 2 }).where(eq(probes.key, key)),
      follower: db.insert(records).values({ key, what: "follower" }),
      secondReader: recordWhere(key, "misread as written", sql`changes() > 0`),
    });
    expect(await recorded(key)).toEqual(["follower", "misread as written"]);
  });

  it("gives the write's condition to one statement only: no group in its place, no condition after it", async () => {
    const key = crypto.randomUUID();
    const write = db.insert(probes).values({ key, value: 1 }).onConflictDoNothing();
    expect(() =>
      writeInPhases({
        write,
        // @ts-expect-error the record is one statement; a second one after it would read the first one's count
        record: (written) => ({ first: recordWhere(key, "written", written), second: recordWhere(key, "again", written) }),
      }),
    ).toThrow("a write's record is one statement");
    await expect(
      batchByName(db, {
        // @ts-expect-error what stands after the record gets no condition to read
        probe: writeInPhases({ write, after: (written: SQL) => recordWhere(key, "after", written) }),
      }),
    ).rejects.toThrow('batch statement "after" is a function');
    expect(await recorded(key)).toEqual([]);
  });

  it("takes an audit of the row before its write only in the before phase", async () => {
    const key = crypto.randomUUID();
    const guard = eq(probes.key, key);
    const change = () =>
      auditBeforeWrite(
        db,
        audit,
        {
          action: "stock.removed",
          target: { type: "stock_number", id: key },
          customerId: null,
          changes: { value: [probes.value, null] },
        },
        { from: probes, guard },
      );
    const write = db.delete(probes).where(guard);
    await expect(
      // @ts-expect-error an audit of the row before its write stands in a write's before phase, nowhere else
      batchByName(db, { audit: change(), write }),
    ).rejects.toThrow('batch statement "audit" reads the row before a write');
    await expect(
      // @ts-expect-error nor after the write, where it would read the row as the write left it
      batchByName(db, { probe: writeInPhases({ write, after: { audit: change() } }) }),
    ).rejects.toThrow('batch statement "audit" reads the row before a write');
    // Where it belongs, it runs (the guard finds no row here, so it writes nothing).
    const placed = await batchByName(db, { probe: writeInPhases({ before: { audit: change() }, write }) });
    expect(Object.keys(placed.probe)).toEqual(["before", "write", "record", "after"]);
  });
});
