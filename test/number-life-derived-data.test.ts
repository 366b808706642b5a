// The derived data of a number's life (migrations/0015, 0016): stock_counts per status, number_tags and kyc_counts
// (which leave out released numbers' verifications) stay equal to a recount whatever writes the rows, in plain SQL as
// an operator or a backfill would; and the migration brings rows written before it to the same state.
import { applyD1Migrations } from "cloudflare:test";
import { env } from "cloudflare:workers";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DAY_MS } from "../src/lib/time.ts";
import { createCustomer } from "./helpers.ts";

type Row = Record<string, unknown>;

async function all(db: D1Database, sql: string, ...params: unknown[]): Promise<Row[]> {
  return (
    await db
      .prepare(sql)
      .bind(...params)
      .all<Row>()
  ).results;
}

async function run(db: D1Database, sql: string, ...params: unknown[]): Promise<void> {
  await db
    .prepare(sql)
    .bind(...params)
    .run();
}

/** Rows as sorted JSON lines, so two result sets compare whatever their order. */
const canonical = (rows: Row[]) => rows.map((row) => JSON.stringify(row)).sort();

const STOCK_STATUSES = ["available", "quarantined", "reserved"] as const;
const NUMBER_STATUSES = ["active", "suspended", "released"] as const;
const KYC_STATUSES = ["pending", "under_review", "approved", "rejected"] as const;
const TAGS = ["Blue", "blue", "red", "team:a", "x y"];

/** stock_counts of these number types against a recount of stock_numbers. */
async function expectStockCountsExact(db: D1Database, types: string[]) {
  const list = JSON.stringify(types);
  const stored = await all(
    db,
    `SELECT country_code, number_type, count, available, quarantined, reserved FROM stock_counts
     WHERE number_type IN (SELECT value FROM json_each(?))`,
    list,
  );
  const recount = await all(
    db,
    `SELECT country_code, number_type, count(*) AS count, total(status = 'available') AS available,
       total(status = 'quarantined') AS quarantined, total(status = 'reserved') AS reserved
     FROM stock_numbers WHERE number_type IN (SELECT value FROM json_each(?)) GROUP BY country_code, number_type`,
    list,
  );
  expect(canonical(stored)).toEqual(
    canonical(
      recount.map((r) => ({
        ...r,
        available: Number(r.available),
        quarantined: Number(r.quarantined),
        reserved: Number(r.reserved),
      })),
    ),
  );
}

/** number_tags of these accounts against the tags of their numbers, in lower case. */
async function expectNumberTagsExact(db: D1Database, customerIds: string[]) {
  const list = JSON.stringify(customerIds);
  const stored = await all(
    db,
    "SELECT number_id, customer_id, tag_key FROM number_tags WHERE customer_id IN (SELECT value FROM json_each(?))",
    list,
  );
  const recount = await all(
    db,
    `SELECT DISTINCT n.id AS number_id, n.customer_id, lower(t.value) AS tag_key FROM numbers n, json_each(n.tags) t
     WHERE n.customer_id IN (SELECT value FROM json_each(?))`,
    list,
  );
  expect(canonical(stored)).toEqual(canonical(recount));
}

/** kyc_counts of these accounts, and kyc_totals, against a recount of the verifications of unreleased numbers. */
async function expectKycCountsExact(db: D1Database, customerIds: string[]) {
  const list = JSON.stringify(customerIds);
  expect(
    await all(
      db,
      `SELECT k.id FROM kyc_verifications k JOIN numbers n ON n.id = k.number_id
       WHERE k.number_released IS NOT (n.status = 'released')`,
    ),
  ).toEqual([]);
  const stored = await all(
    db,
    "SELECT customer_id, status, count FROM kyc_counts WHERE customer_id IN (SELECT value FROM json_each(?))",
    list,
  );
  const recount = await all(
    db,
    `SELECT customer_id, status, count(*) AS count FROM kyc_verifications
     WHERE number_released = 0 AND customer_id IN (SELECT value FROM json_each(?)) GROUP BY customer_id, status`,
    list,
  );
  expect(canonical(stored)).toEqual(canonical(recount));
  const totals = await all(db, "SELECT status, count FROM kyc_totals");
  const allRecount = await all(
    db,
    "SELECT status, count(*) AS count FROM kyc_verifications WHERE number_released = 0 GROUP BY status",
  );
  expect(canonical(totals)).toEqual(canonical(allRecount));
}

/** An order of the account's, for numbers written in SQL. */
async function orderOf(db: D1Database, customerId: string): Promise<string> {
  const id = crypto.randomUUID();
  await run(
    db,
    `INSERT INTO orders (id, customer_id, order_seq, number_type, country_code, quantity, status, fulfilled_quantity,
       requested_at, created_at, updated_at)
     SELECT ?, ?, coalesce(max(order_seq), 0) + 1, 'mobile', 'US', 100, 'processing', 0, 0, 0, 0 FROM orders`,
    id,
    customerId,
  );
  return id;
}

async function insertVerification(db: D1Database, id: string, customerId: string, numberId: string | null, status: string) {
  await run(
    db,
    `INSERT INTO kyc_verifications (id, customer_id, number_id, name, status, type, address_line_1, city, state_province,
       postal_code, country, submitted_at) VALUES (?, ?, ?, ?, ?, 'individual', '1 Main St', 'Town', 'State', '12345', 'US', 0)`,
    id,
    customerId,
    numberId,
    numberId === null ? "Profile" : null,
    status,
  );
}

describe("a number's life's derived data", () => {
  it("stock_counts per status, number_tags and kyc_counts match a recount after random writes", async () => {
    const db = env.DB;
    const accounts = [await createCustomer("derived"), await createCustomer("derived")];
    const customerIds = accounts.map((c) => c.customerId);
    const orderIds = [await orderOf(db, customerIds[0]!), await orderOf(db, customerIds[1]!)];
    const types = [`dd${crypto.randomUUID().slice(0, 8)}`, `dd${crypto.randomUUID().slice(0, 8)}`];
    let serial = 0;
    const seen = new Set<string>();
    const write = fc.record({
      table: fc.constantFrom("stock" as const, "numbers" as const, "kyc" as const),
      kind: fc.constantFrom("insert" as const, "update" as const, "delete" as const),
      account: fc.nat(1),
      pick: fc.nat(),
      variant: fc.nat(3),
      tags: fc.subarray(TAGS),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(write, { minLength: 1, maxLength: 25 }), async (writes) => {
        for (const w of writes) {
          serial++;
          const customerId = customerIds[w.account]!;
          if (w.table === "stock") {
            const status = STOCK_STATUSES[w.variant % 3]!;
            if (w.kind === "insert") {
              await run(
                db,
                `INSERT INTO stock_numbers (phone_number, country_code, number_type, import_id, imported_at, status, available_at, source)
                 VALUES (?, ?, ?, 'i', 0, ?, 0, 'import')`,
                `+1555${String(Date.now() % 1e6).padStart(6, "0")}${String(serial).padStart(4, "0")}`,
                w.account ? "GB" : "US",
                types[w.variant % 2],
                status,
              );
              continue;
            }
            const rows = await all(
              db,
              "SELECT phone_number FROM stock_numbers WHERE number_type IN (?, ?) ORDER BY phone_number",
              ...types,
            );
            const target = rows[w.pick % Math.max(1, rows.length)]?.phone_number;
            if (target === undefined) continue;
            if (w.kind === "delete") await run(db, "DELETE FROM stock_numbers WHERE phone_number = ?", target);
            else await run(db, "UPDATE stock_numbers SET status = ? WHERE phone_number = ?", status, target);
            seen.add(`stock ${w.kind}`);
            continue;
          }
          const numberRows = await all(
            db,
            "SELECT id, status FROM numbers WHERE customer_id IN (?, ?) ORDER BY id",
            ...customerIds,
          );
          const number = numberRows[w.pick % Math.max(1, numberRows.length)];
          if (w.table === "numbers") {
            if (w.kind === "insert") {
              await run(
                db,
                `INSERT INTO numbers (id, customer_id, order_id, phone_number, country_code, number_type, status, tags, created_at, updated_at)
                 VALUES (?, ?, ?, ?, 'US', 'mobile', ?, ?, 0, 0)`,
                crypto.randomUUID(),
                customerId,
                orderIds[w.account],
                `+4479${crypto.randomUUID().replace(/\D/g, "").slice(0, 8).padEnd(8, "0")}`,
                NUMBER_STATUSES[w.variant % 2],
                JSON.stringify(w.tags),
              );
              continue;
            }
            if (!number) continue;
            if (w.kind === "delete") {
              // A number with a verification is never deleted (its verification references it).
              await run(db, "DELETE FROM kyc_verifications WHERE number_id = ?", number.id);
              await run(db, "DELETE FROM numbers WHERE id = ?", number.id);
            } else if (w.variant === 0) await run(db, "UPDATE numbers SET customer_id = ? WHERE id = ?", customerId, number.id);
            else if (w.variant === 1)
              await run(db, "UPDATE numbers SET tags = ? WHERE id = ?", JSON.stringify(w.tags), number.id);
            else await run(db, "UPDATE numbers SET status = ? WHERE id = ?", NUMBER_STATUSES[w.pick % 3], number.id);
            seen.add(`numbers ${w.kind}`);
            continue;
          }
          const status = KYC_STATUSES[w.variant]!;
          if (w.kind === "insert") {
            // Verifications are made for unreleased numbers only (the API refuses a released one's), or as profiles.
            const free = await all(
              db,
              `SELECT id FROM numbers WHERE customer_id = ? AND status <> 'released'
                 AND id NOT IN (SELECT number_id FROM kyc_verifications WHERE number_id IS NOT NULL) LIMIT 1`,
              customerId,
            );
            await insertVerification(db, crypto.randomUUID(), customerId, (free[0]?.id as string | undefined) ?? null, status);
            continue;
          }
          const kycRows = await all(
            db,
            "SELECT id FROM kyc_verifications WHERE customer_id IN (?, ?) ORDER BY id",
            ...customerIds,
          );
          const kyc = kycRows[w.pick % Math.max(1, kycRows.length)]?.id;
          if (kyc === undefined) continue;
          if (w.kind === "delete") await run(db, "DELETE FROM kyc_verifications WHERE id = ?", kyc);
          else if (w.tags.length % 2) await run(db, "UPDATE kyc_verifications SET customer_id = ? WHERE id = ?", customerId, kyc);
          else await run(db, "UPDATE kyc_verifications SET status = ? WHERE id = ?", status, kyc);
          seen.add(`kyc ${w.kind}`);
        }
        await expectStockCountsExact(db, types);
        await expectNumberTagsExact(db, customerIds);
        await expectKycCountsExact(db, customerIds);
      }),
      { numRuns: 25 },
    );
    expect([...seen].sort()).toEqual(
      ["kyc delete", "kyc update", "numbers delete", "numbers update", "stock delete", "stock update"].sort(),
    );
  });

  it("refuses a change of a stock number's identity, and takes a change of its status", async () => {
    const db = env.DB;
    const phone = `+1556${String(Date.now() % 1e7).padStart(7, "0")}`;
    await run(
      db,
      "INSERT INTO stock_numbers (phone_number, country_code, number_type, import_id, imported_at) VALUES (?, 'US', 'identity', 'i', 0)",
      phone,
    );
    for (const column of ["phone_number", "country_code", "number_type", "import_id", "imported_at", "source"]) {
      await expect(
        run(db, `UPDATE stock_numbers SET ${column} = ${column} WHERE phone_number = ?`, phone),
        column,
      ).rejects.toThrow(/never changed/);
    }
    await run(db, "UPDATE stock_numbers SET status = 'quarantined', available_at = 5 WHERE phone_number = ?", phone);
    await run(db, "DELETE FROM stock_numbers WHERE phone_number = ?", phone);
  });
});

describe("the migration to a number's life", () => {
  it("brings rows written before it to the new state: counts, stock, legacy released and suspended numbers, kyc_counts", async () => {
    const db = env.NUMBER_LIFE_MIGRATION_DB;
    await applyD1Migrations(
      db,
      env.TEST_MIGRATIONS.filter((m) => m.name < "0015"),
    );
    const customers = ["c1", "c2"];
    for (const [i, id] of customers.entries()) {
      await run(
        db,
        "INSERT INTO customers (id, slug, name, created_at, updated_at) VALUES (?, ?, 'Legacy', 0, 0)",
        id,
        `legacy-${i}`,
      );
      await run(
        db,
        `INSERT INTO orders (id, customer_id, order_seq, number_type, country_code, quantity, status, fulfilled_quantity,
           requested_at, created_at, updated_at) VALUES (?, ?, ?, 'mobile', 'US', 100, 'processing', 0, 0, 0, 0)`,
        `o${i}`,
        id,
        i + 1,
      );
    }
    await insertVerification(db, "profile", "c1", null, "approved");
    for (let i = 0; i < 12; i++) {
      const status = NUMBER_STATUSES[i % 3]!;
      await run(
        db,
        `INSERT INTO numbers (id, customer_id, order_id, phone_number, country_code, number_type, status, created_at, updated_at)
         VALUES (?, ?, ?, ?, 'US', 'mobile', ?, 0, ?)`,
        `n${i}`,
        customers[i % 2],
        `o${i % 2}`,
        `+4930${String(i).padStart(8, "0")}`,
        status,
        (i + 1) * DAY_MS,
      );
      // Half the numbers have their own verification; c1's others joined the profile.
      if (i % 4 < 2) await insertVerification(db, `k${i}`, customers[i % 2]!, `n${i}`, KYC_STATUSES[i % 4]!);
      else if (i % 2 === 0) {
        await run(
          db,
          "INSERT INTO kyc_profile_numbers (number_id, kyc_id, profile_id, customer_id, attached_at) VALUES (?, ?, 'profile', 'c1', 0)",
          `n${i}`,
          `pk${i}`,
        );
      }
    }
    for (let i = 0; i < 5; i++) {
      await run(
        db,
        "INSERT INTO stock_numbers (phone_number, country_code, number_type, import_id, imported_at) VALUES (?, ?, 'mobile', 'i', ?)",
        `+4940${String(i).padStart(8, "0")}`,
        i % 2 ? "GB" : "US",
        1000 + i,
      );
    }
    await run(db, "INSERT INTO events (id, customer_id, type, data, created_at) VALUES ('e1', 'c1', 'order.created', '{}', 0)");
    await applyD1Migrations(db, env.TEST_MIGRATIONS);

    const numberCounts = await all(db, "SELECT customer_id, country_code, number_type, status, count FROM number_counts");
    const recounted = await all(
      db,
      "SELECT customer_id, country_code, number_type, status, count(*) AS count FROM numbers GROUP BY 1, 2, 3, 4",
    );
    expect(canonical(numberCounts)).toEqual(canonical(recounted));
    expect(await all(db, "SELECT country_code, count, available, quarantined, reserved FROM stock_counts ORDER BY 1")).toEqual([
      { country_code: "GB", count: 2, available: 2, quarantined: 0, reserved: 0 },
      { country_code: "US", count: 3, available: 3, quarantined: 0, reserved: 0 },
    ]);
    expect(
      await all(
        db,
        "SELECT phone_number FROM stock_numbers WHERE available_at <> imported_at OR status <> 'available' OR source <> 'import'",
      ),
    ).toEqual([]);

    const legacy = await all(
      db,
      `SELECT id, status, released_at, restorable_until, release_reason, suspended_at, suspension_reason, release_protected,
         tags, customer_reference, kyc_profile_id, released_profile_id, closed_at FROM numbers ORDER BY updated_at`,
    );
    expect(legacy).toEqual(
      Array.from({ length: 12 }, (_, i) => {
        const updatedAt = (i + 1) * DAY_MS;
        const status = NUMBER_STATUSES[i % 3];
        const inProfile = i % 4 >= 2 && i % 2 === 0;
        return {
          id: `n${i}`,
          status,
          released_at: status === "released" ? updatedAt : null,
          restorable_until: status === "released" ? updatedAt + 10 * DAY_MS : null,
          release_reason: null,
          suspended_at: status === "suspended" ? updatedAt : null,
          suspension_reason: status === "suspended" ? "other" : null,
          release_protected: 0,
          tags: "[]",
          customer_reference: null,
          // A released number left its profile, which a restore gives back.
          kyc_profile_id: inProfile && status !== "released" ? "profile" : null,
          released_profile_id: inProfile && status === "released" ? "profile" : null,
          closed_at: null,
        };
      }),
    );
    expect(await all(db, "SELECT number_id FROM kyc_profile_numbers ORDER BY number_id")).toEqual(
      [...Array(12).keys()]
        .filter((i) => i % 4 >= 2 && i % 2 === 0 && NUMBER_STATUSES[i % 3] !== "released")
        .map((i) => ({ number_id: `n${i}` }))
        .sort((a, b) => (a.number_id < b.number_id ? -1 : 1)),
    );
    // The released numbers' own verifications (n1's and n5's … of status released) are out of the counts.
    const flagged = await all(db, "SELECT id FROM kyc_verifications WHERE number_released = 1 ORDER BY id");
    expect(flagged.length).toBeGreaterThan(0);
    await expectKycCountsExact(db, customers);
    // The rebuilt events table keeps its rows and takes the new types, counted by its triggers.
    await run(db, "INSERT INTO events (id, customer_id, type, data, created_at) VALUES ('e2', 'c1', 'number.released', '{}', 1)");
    expect(await all(db, "SELECT type, count FROM event_counts ORDER BY type")).toEqual([
      { type: "number.released", count: 1 },
      { type: "order.created", count: 1 },
    ]);
    await expect(
      run(db, "INSERT INTO events (id, customer_id, type, data, created_at) VALUES ('e3', 'c1', 'number.bogus', '{}', 1)"),
    ).rejects.toThrow(/CHECK/);
  });
});
