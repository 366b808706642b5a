// A number's life at scale (LIFECYCLE.md, Scale), measured once each on the benchmark's data set: release (its dry
// run too), restore, the operator's suspend and tags of 1,000 of the large account's numbers in one request each; the
// return-to-stock job over 100,000 released numbers past their restore window; and exports of 1,000 and of 100,000
// numbers, with the peak memory of the workerd that runs the Worker during each.
import { createApiKey, createCustomer } from "../../src/customers/store.ts";
import type { Database } from "../../src/db/client.ts";
import { valueOrThrow } from "../../src/db/outcome.ts";
import { RESTORE_WINDOW_MS } from "../../src/numbers/lifecycle.ts";
import { SEEDING } from "../seed.ts";
import { insertRows, NUMBER_COLUMNS, ORDER_COLUMNS, orderRow, PAIRS } from "./generate.ts";
import { memoryOf, resetPeak } from "./process-memory.ts";

/** Numbers moved by each bulk request: the most one request takes. */
const MOVED_NUMBERS = 1_000;
/** Released numbers whose restore window has passed, for the return-to-stock job. */
const DUE_RELEASES = 100_000;
/** The numbers of the two export accounts: the small one is the measure the large one is held to. */
const EXPORT_SIZES = [1_000, 100_000] as const;
/** The job's name in its log line (src/index.ts). */
const RETURN_JOB = "return-numbers-to-stock";
const DAY = 86_400_000;
const NOT_FRESH = "seeding the benchmark state (it must start empty)";

export interface LifeFixtures {
  largeSlug: string;
  /** Active numbers of the large account's main profile (a release detaches them, a restore attaches them again). */
  movedNumberIds: string[];
  /** An account of each export size, with its key; smallest first. */
  exports: { slug: string; key: string; numbers: number }[];
}

/** Numbers per order at most (orders_quantity_range). */
const ORDER_QUANTITY = 10_000;
/** Order sequences far above the data set's (they are unique across accounts). */
let nextSeq = 50_000_000;

/**
 * An account with its key and fulfilled orders of `quantity` numbers in all (their numbers written by the caller):
 * `orderOf(i)` is the i-th number's order.
 */
async function accountWithOrders(db: Database, d1: D1Database, slug: string, quantity: number, now: number) {
  const account = valueOrThrow(await createCustomer(db, SEEDING, { slug, name: `Life ${slug}` }, now), NOT_FRESH);
  const key = valueOrThrow(await createApiKey(db, SEEDING, slug, "bench", now), NOT_FRESH).key;
  const at = now - 60 * DAY;
  const orders = Array.from({ length: Math.ceil(quantity / ORDER_QUANTITY) }, (_, i) => {
    const size = Math.min(ORDER_QUANTITY, quantity - i * ORDER_QUANTITY);
    return orderRow(account.id, {
      id: crypto.randomUUID(),
      seq: nextSeq++,
      countryCode: "US",
      numberType: "mobile",
      quantity: size,
      status: "fulfilled",
      fulfilledQuantity: size,
      notes: null,
      requestedAt: at,
      fulfilledAt: at,
      updatedAt: at,
    });
  });
  await insertRows(d1, "orders", ORDER_COLUMNS, orders);
  const orderOf = (i: number) => orders[Math.floor(i / ORDER_QUANTITY)]![0] as string;
  return { id: account.id, key, orderOf, at };
}

/**
 * The numbers the life operations work on: 1,000 active numbers of the large account's main profile; an account
 * holding 100,000 numbers released 11 days ago (their 10 days to restore passed), over every pair; and the export
 * accounts' active numbers. Phone numbers +1999…, +1444… and +1445… are nobody else's.
 */
export async function seedLife(
  db: Database,
  d1: D1Database,
  large: { slug: string; customerId: string; mainProfileId: string },
  log: (line: string) => void,
): Promise<LifeFixtures> {
  const now = Date.now();
  const moved = await d1
    .prepare(
      `SELECT n.id FROM kyc_profile_numbers p JOIN numbers n ON n.id = p.number_id
       WHERE p.profile_id = ? AND n.status = 'active' ORDER BY n.created_at, n.id LIMIT ?`,
    )
    .bind(large.mainProfileId, MOVED_NUMBERS)
    .all<{ id: string }>();
  const movedNumberIds = moved.results.map((row) => row.id);
  if (movedNumberIds.length !== MOVED_NUMBERS) throw new Error("too few active numbers in the main profile");

  const churn = await accountWithOrders(db, d1, "churn", DUE_RELEASES, now);
  const releasedAt = now - 11 * DAY;
  const released = Array.from({ length: DUE_RELEASES }, (_, i) => {
    const [countryCode, numberType] = PAIRS[i % PAIRS.length]!;
    // 100 ms apart (under 3 hours in all, so every one is past its window): the job takes the oldest deadlines first.
    const at = releasedAt + i * 100;
    const phone = `+1999${String(i).padStart(7, "0")}`;
    const number = [crypto.randomUUID(), churn.id, churn.orderOf(i), phone, countryCode, numberType, "released", churn.at, at];
    return [...number, at, at + RESTORE_WINDOW_MS, "customer"];
  });
  await insertRows(d1, "numbers", [...NUMBER_COLUMNS, "released_at", "restorable_until", "release_reason"], released);
  log(`life: ${DUE_RELEASES} released numbers due back to stock`);

  const exports: LifeFixtures["exports"] = [];
  for (const [i, size] of EXPORT_SIZES.entries()) {
    const slug = `export-${size}`;
    const account = await accountWithOrders(db, d1, slug, size, now);
    const rows = Array.from({ length: size }, (_, n) => [
      crypto.randomUUID(),
      account.id,
      account.orderOf(n),
      `+144${4 + i}${String(n).padStart(7, "0")}`,
      "US",
      "mobile",
      "active",
      account.at + n,
      account.at + n,
    ]);
    await insertRows(d1, "numbers", NUMBER_COLUMNS, rows);
    exports.push({ slug, key: account.key, numbers: size });
  }
  log(`life: export accounts of ${EXPORT_SIZES.join(" and ")} numbers`);
  return { largeSlug: large.slug, movedNumberIds, exports };
}

/** What the life operations read from the running Worker: its log lines and the workerd that runs it. */
interface LifeContext {
  base: string;
  /** A key of the large account, and a staff member's Access token (fulfilment). */
  customerKey: string;
  staffToken: string;
  /** SQLite time and D1 calls of a request, from its log line. */
  d1Of: (requestId: string) => { ms: number; calls: number } | undefined;
  /** The last log line of a scheduled job. */
  jobLine: (job: string) => Record<string, unknown> | undefined;
  workerdPid: number;
}

interface LifeOperation {
  name: string;
  status: number;
  wallMs: number;
  d1Ms: number | null;
  d1Calls: number | null;
  /** What it did, as its answer or log line counts it. */
  outcome: string;
  goal: string;
  met: boolean;
}

interface ExportMemory {
  numbers: number;
  status: number;
  rows: number;
  mib: number;
  wallMs: number;
  rssBefore: number;
  /** Peak resident set during the export over the resident set before it, in MiB. */
  peakRise: number;
}

const count = (n: number) => n.toLocaleString("en-US");
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** The SQLite time each bulk request and job batch is held to ("well under a second"). */
const SQLITE_GOAL_MS = 500;

export async function lifeOperations(
  f: LifeFixtures,
  context: LifeContext,
): Promise<{ operations: LifeOperation[]; exports: ExportMemory[] }> {
  const { base } = context;
  const customer = { authorization: `Bearer ${context.customerKey}` };
  const staff = { "cf-access-jwt-assertion": context.staffToken };
  const operations: LifeOperation[] = [];
  const bulk = async (
    name: string,
    requestId: string,
    path: string,
    credential: Record<string, string>,
    body: unknown,
    moved: (report: Record<string, unknown>) => number,
  ) => {
    const started = performance.now();
    const answer = await fetch(`${base}${path}`, {
      method: "POST",
      headers: { ...credential, "content-type": "application/json", "x-request-id": requestId },
      body: JSON.stringify(body),
    });
    const report = (await answer.json()) as Record<string, unknown>;
    const wallMs = performance.now() - started;
    await sleep(500);
    const d1 = context.d1Of(requestId);
    const done = answer.status === 200 ? moved(report) : 0;
    operations.push({
      name,
      status: answer.status,
      wallMs,
      d1Ms: d1?.ms ?? null,
      d1Calls: d1?.calls ?? null,
      outcome: `${count(done)} of ${count(f.movedNumberIds.length)}`,
      goal: `all, under ${SQLITE_GOAL_MS} ms of SQLite time`,
      met: done === f.movedNumberIds.length && (d1?.ms ?? Infinity) < SQLITE_GOAL_MS,
    });
  };
  const numberIds = f.movedNumberIds.map((id) => `num_${id}`);
  const numbers = `/api/customers/${f.largeSlug}/numbers`;
  const results = (report: Record<string, unknown>, outcome: string) =>
    (report.results as { outcome: string }[]).filter((r) => r.outcome === outcome).length;
  const n = count(numberIds.length);
  await bulk(
    `release ${n} (dry run)`,
    "bench.life.preview",
    `${numbers}/release`,
    customer,
    { number_ids: numberIds, dry_run: true },
    (r) => results(r, "would_release"),
  );
  await bulk(
    `release ${n}`,
    "bench.life.release",
    `${numbers}/release`,
    customer,
    { number_ids: numberIds },
    (r) => r.released as number,
  );
  await bulk(
    `restore ${n}`,
    "bench.life.restore",
    `${numbers}/restore`,
    customer,
    { number_ids: numberIds },
    (r) => r.restored as number,
  );
  await bulk(
    `suspend ${n} (operator)`,
    "bench.life.suspend",
    "/admin/numbers/suspend",
    staff,
    { number_ids: numberIds, reason: "non_payment" },
    (r) => r.suspended as number,
  );
  await bulk(
    `tag ${n}`,
    "bench.life.tag",
    `${numbers}/tags`,
    customer,
    { number_ids: numberIds, add: ["campaign-7", "eu"] },
    (r) => r.updated as number,
  );
  operations.push(await returnJob(context));
  return { operations, exports: await exportMemory(f, context) };
}

/** The scheduled handler run once through wrangler dev's /__scheduled; the return job's figures from its log line. */
async function returnJob(context: LifeContext): Promise<LifeOperation> {
  const started = performance.now();
  const answer = await fetch(`${context.base}/__scheduled?cron=${encodeURIComponent("*/15 * * * *")}`);
  await answer.arrayBuffer();
  // The jobs run in waitUntil, after the answer: wait for the line (three minutes at most).
  let line = context.jobLine(RETURN_JOB);
  for (let i = 0; i < 1800 && !line; i++) {
    await sleep(100);
    line = context.jobLine(RETURN_JOB);
  }
  const wallMs = performance.now() - started;
  const closed = Number(line?.closed ?? 0);
  const slowest = Number(line?.slowestBatchMs ?? Infinity);
  return {
    name: `return-to-stock job, ${count(DUE_RELEASES)} due`,
    status: answer.status,
    wallMs,
    d1Ms: line ? Number(line.d1Ms) : null,
    d1Calls: null,
    outcome: line
      ? `${count(closed)} closed, ${count(Number(line.quarantined))} quarantined, ${line.batches} batches, slowest ${slowest.toFixed(1)} ms`
      : "no log line",
    goal: `all, each batch under ${SQLITE_GOAL_MS} ms of SQLite time`,
    met: closed === DUE_RELEASES && slowest < SQLITE_GOAL_MS,
  };
}

/**
 * Each export account's CSV read to its end as a client would (chunk by chunk, counting lines), the workerd's peak
 * resident set reset before: its rise over the resident set before is what the export held at most. A first export,
 * not measured, compiles the code paths.
 */
async function exportMemory(f: LifeFixtures, context: LifeContext): Promise<ExportMemory[]> {
  const download = async (account: LifeFixtures["exports"][number]) => {
    const started = performance.now();
    const answer = await fetch(`${context.base}/api/customers/${account.slug}/numbers/export`, {
      headers: { authorization: `Bearer ${account.key}`, "x-request-id": `bench.life.export.${account.numbers}` },
    });
    let lines = 0;
    let bytes = 0;
    for await (const chunk of answer.body as AsyncIterable<Uint8Array>) {
      bytes += chunk.length;
      for (const byte of chunk) if (byte === 0x0a) lines++;
    }
    return { status: answer.status, rows: Math.max(0, lines - 1), mib: bytes / 2 ** 20, wallMs: performance.now() - started };
  };
  await download(f.exports[0]!);
  const measured: ExportMemory[] = [];
  for (const account of f.exports) {
    await sleep(1000);
    const rssBefore = memoryOf(context.workerdPid).rss;
    resetPeak(context.workerdPid);
    const got = await download(account);
    measured.push({ numbers: account.numbers, ...got, rssBefore, peakRise: memoryOf(context.workerdPid).hwm - rssBefore });
  }
  return measured;
}

/** The operations' lines and the exports' table, under a heading. */
export function printLife({ operations, exports }: { operations: LifeOperation[]; exports: ExportMemory[] }): void {
  console.log("\nA number's life (once each):");
  for (const o of operations) {
    console.log(
      `${o.name}: ${o.status}, ${o.outcome}; ${o.wallMs.toFixed(0)} ms end to end, ` +
        `${o.d1Ms?.toFixed(1) ?? "-"} ms of SQLite time${o.d1Calls === null ? "" : ` in ${o.d1Calls} D1 call(s)`} ` +
        `(goal: ${o.goal}; ${o.met ? "met" : "MISSED"})`,
    );
  }
  for (const e of exports) {
    console.log(
      `export of ${count(e.numbers)} numbers: ${e.status}, ${count(e.rows)} rows, ${e.mib.toFixed(1)} MiB of CSV in ` +
        `${e.wallMs.toFixed(0)} ms; workerd RSS before ${e.rssBefore.toFixed(1)} MiB, peak rise ${e.peakRise.toFixed(1)} MiB`,
    );
  }
}
