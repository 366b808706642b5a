// The benchmark's data set: one large account (100,000 orders, 20,000 numbers, 1,000 users) among 20 accounts of
// 10,000 orders, and (unless left out) an account of 1,000,000 orders and 1,000,000 numbers made the same way; the
// large account's compliance (scripts/bench/compliance.ts); and for the operator, 1,000 accounts holding 100,000 open
// orders and 10,000 verifications awaiting review, and a stock of 1,000,000 numbers. Rows are generated
// deterministically and written through the fast path of scripts/bench/generate.ts; the accounts, their keys and the
// large account's pending verifications go through the stores.

import { addCatalogPair } from "../../src/catalog/store.ts";
import { createApiKey, createCustomer } from "../../src/customers/store.ts";
import type { Database } from "../../src/db/client.ts";
import { Outbox } from "../../src/db/outbox.ts";
import { valueOrThrow } from "../../src/db/outcome.ts";
import { submitVerification } from "../../src/kyc/store.ts";
import { seededRandom } from "../../src/lib/seeded-random.ts";
import { SEEDING } from "../seed.ts";
import { AWAITING_VERIFICATION_COLUMNS, type ComplianceFixtures, seedCompliance } from "./compliance.ts";
import {
  DAY,
  END,
  generateOrders,
  insertNumbers,
  insertOrders,
  insertRows,
  NUMBER_COLUMNS,
  ORDER_COLUMNS,
  type OrderSeed,
  orderRow,
  PAIRS,
  pickPair,
  SPAN,
} from "./generate.ts";

/** The sizes of account the per-account scenarios run at: orders and numbers in the account. */
export const SIZES = {
  "100k": { orders: 100_000, numbers: 20_000 },
  "1m": { orders: 1_000_000, numbers: 1_000_000 },
} as const;
export type Size = keyof typeof SIZES;

/** The 1,000,000-order account's: its own seeds, order sequences above every other account's, its own phone numbers. */
const MILLION = { ordersSeed: 2, numbersSeed: 8, firstSeq: 10_000_001, phonePrefix: "+1333" };

const LARGE_ORDERS = SIZES["100k"].orders;
const OTHER_ACCOUNTS = 20;
const OTHER_ORDERS = 10_000;
const LARGE_NUMBERS = SIZES["100k"].numbers;
const LARGE_USERS = 1_000;
/** API keys of each sized account: the load is spread over them so no key reaches its per-minute budget. */
const LARGE_KEYS = 200;
/** Numbers of the large account with a pending verification, for the KYC read and upload scenarios. */
const VERIFIED_NUMBERS = 100;

/** The operator's side: accounts with open orders (and a fulfilled order each, whose numbers are being verified). */
const QUEUE_ACCOUNTS = 1_000;
const OPEN_ORDERS_PER_ACCOUNT = 100;
const VERIFICATIONS_PER_ACCOUNT = 10;
const STOCK_NUMBERS = 1_000_000;
/** The order an allocation of this many numbers from stock fulfils at once. */
export const ALLOCATION_FROM_STOCK = 10_000;
/** The numbers an import through the API brings in one request. */
export const IMPORTED_NUMBERS = 100_000;

const FIRST_NAMES = ["Ada", "Grace", "Alan", "Edsger", "Barbara", "Donald", "Frances", "Ken", "Radia", "Tim"];
const LAST_NAMES = ["Lovelace", "Hopper", "Turing", "Dijkstra", "Liskov", "Knuth", "Allen", "Thompson", "Perlman", "Berners-Lee"];

async function insertUsers(d1: D1Database, customerId: string): Promise<void> {
  const next = seededRandom(11);
  const rows = Array.from({ length: LARGE_USERS }, (_, i) => {
    const name = `${FIRST_NAMES[i % 10]} ${LAST_NAMES[Math.floor(i / 10) % 10]} ${i}`;
    const role = i === 0 ? "owner" : next() < 0.05 ? "admin" : "member";
    const status = next() < 0.85 ? "active" : next() < 0.66 ? "inactive" : "locked";
    const createdAt = END - Math.floor(next() * SPAN);
    const lastLoginAt = next() < 0.8 ? createdAt + Math.floor(next() * (END - createdAt)) : null;
    return [crypto.randomUUID(), customerId, `user${i}@large.example`, name, role, status, lastLoginAt, createdAt, createdAt];
  });
  await insertRows(
    d1,
    "users",
    ["id", "customer_id", "email", "name", "role", "status", "last_login_at", "created_at", "updated_at"],
    rows,
  );
}

/** An account the per-account scenarios run against, one per size. */
export interface SizedAccount {
  size: Size;
  slug: string;
  customerId: string;
  /** Plaintext keys of the account. */
  keys: string[];
  /** A pending order (get and update scenarios). */
  pendingOrderId: string;
  /** The order with the most of the account's numbers (the numbers list's order_id filter), and how many. */
  numbersOrderId: string;
  numbersOfOrder: number;
}

export interface Fixtures extends ComplianceFixtures {
  /** One of the operator's queue accounts, for the queues filtered by account. */
  queueSlug: string;
  /** A pending order of ALLOCATION_FROM_STOCK numbers of a pair the stock holds plenty of. */
  allocationOrderId: string;
  /** The stock import's CSV body: IMPORTED_NUMBERS numbers no other row holds. */
  importCsv: string;
  /** The large account (100,000 orders), whose compliance, users and KYC the other scenarios use. */
  slug: string;
  customerId: string;
  keys: string[];
  /** Numbers of the large account with a pending verification. */
  verifiedNumberIds: string[];
  /** The accounts of the per-account scenarios, smallest first: the large account, and the 1,000,000 one if seeded. */
  accounts: SizedAccount[];
}

/** What a refused write while seeding means: the state the benchmark writes into was not empty. */
const NOT_FRESH = "seeding the benchmark state (it must start empty)";

/** An account with its API keys, through the stores. */
async function accountWithKeys(db: Database, slug: string, name: string, now: number) {
  const account = valueOrThrow(await createCustomer(db, SEEDING, { slug, name }, now), NOT_FRESH);
  const keys: string[] = [];
  for (let i = 0; i < LARGE_KEYS; i++)
    keys.push(valueOrThrow(await createApiKey(db, SEEDING, slug, `bench ${i}`, now), NOT_FRESH).key);
  return { id: account.id, keys };
}

/** The sized account's fixtures from its orders and numbers. */
function sizedAccount(
  size: Size,
  slug: string,
  account: { id: string; keys: string[] },
  orders: OrderSeed[],
  numbers: { orderId: string }[],
): SizedAccount {
  const perOrder = new Map<string, number>();
  for (const number of numbers) perOrder.set(number.orderId, (perOrder.get(number.orderId) ?? 0) + 1);
  const [numbersOrderId, numbersOfOrder] = [...perOrder].reduce((most, entry) => (entry[1] > most[1] ? entry : most));
  return {
    size,
    slug,
    customerId: account.id,
    keys: account.keys,
    pendingOrderId: orders.findLast((o) => o.status === "pending")!.id,
    numbersOrderId,
    numbersOfOrder,
  };
}

/** Writes the whole data set, the accounts of `sizes` among it; `log` reports progress. */
export async function seedDataset(
  db: Database,
  d1: D1Database,
  sizes: readonly Size[],
  log: (line: string) => void,
): Promise<Fixtures> {
  const now = Date.now();
  const started = performance.now();
  const progress = (line: string) => log(`${line} (${((performance.now() - started) / 1000).toFixed(0)} s)`);
  for (const [countryCode, numberType] of PAIRS) await addCatalogPair(db, SEEDING, { countryCode, numberType }, now);

  const large = await accountWithKeys(db, "large", "Large Telecom", now);
  let seq = 1;
  const largeOrders = generateOrders(LARGE_ORDERS, seq, 1);
  seq += LARGE_ORDERS;
  await insertOrders(d1, large.id, largeOrders);
  progress(`large account: ${LARGE_ORDERS} orders`);
  for (let i = 0; i < OTHER_ACCOUNTS; i++) {
    const other = valueOrThrow(await createCustomer(db, SEEDING, { slug: `other-${i}`, name: `Other ${i}` }, now), NOT_FRESH);
    await insertOrders(d1, other.id, generateOrders(OTHER_ORDERS, seq, 100 + i));
    seq += OTHER_ORDERS;
  }
  progress(`${OTHER_ACCOUNTS} other accounts: ${OTHER_ORDERS} orders each`);

  const largeNumbers = await insertNumbers(d1, large.id, largeOrders, LARGE_NUMBERS, { phonePrefix: "+1555", seed: 7 });
  await insertUsers(d1, large.id);
  progress(`large account: ${largeNumbers.length} numbers, ${LARGE_USERS} users`);

  // A released number takes no new verification (src/kyc/lifecycle.ts).
  const verified = largeNumbers.filter((n) => n.status !== "released").slice(0, VERIFIED_NUMBERS);
  const verifiedNumberIds = verified.map((n) => n.id);
  for (const numberId of verifiedNumberIds) {
    valueOrThrow(
      await submitVerification(
        db,
        new Outbox(),
        large.id,
        numberId,
        {
          type: "business",
          addressLine1: "1 Market St",
          city: "San Francisco",
          stateProvince: "CA",
          postalCode: "94105",
          country: "US",
          companyName: "Large Telecom Inc.",
        },
        now,
      ),
      NOT_FRESH,
    );
  }
  // The numbers with a pending verification of their own take no part in the compliance data.
  const compliance = await seedCompliance(
    d1,
    large.id,
    largeNumbers.filter((n) => !verified.includes(n)),
    now,
    log,
  );
  const operator = await seedOperatorData(d1, seq, log);
  progress("operator's accounts and stock");
  const accounts = [sizedAccount("100k", "large", large, largeOrders, largeNumbers)];
  if (sizes.includes("1m")) accounts.push(await seedMillion(db, d1, now, progress));
  return {
    slug: "large",
    customerId: large.id,
    keys: large.keys,
    verifiedNumberIds,
    accounts,
    ...compliance,
    ...operator,
  };
}

/** The 1,000,000-order account: the large account's generator and distributions, with seeds of its own. */
async function seedMillion(db: Database, d1: D1Database, now: number, progress: (line: string) => void) {
  const { orders: count, numbers: numberCount } = SIZES["1m"];
  const account = await accountWithKeys(db, "million", "Million Telecom", now);
  const orders = generateOrders(count, MILLION.firstSeq, MILLION.ordersSeed);
  await insertOrders(d1, account.id, orders);
  progress(`million account: ${count} orders`);
  const numbers = await insertNumbers(d1, account.id, orders, numberCount, {
    phonePrefix: MILLION.phonePrefix,
    seed: MILLION.numbersSeed,
  });
  progress(`million account: ${numbers.length} numbers`);
  return sizedAccount("1m", "million", account, orders, numbers);
}

/** The operator's side of the data set: the accounts of the queues, their orders and verifications, and the stock. */
async function seedOperatorData(
  d1: D1Database,
  firstSeq: number,
  log: (line: string) => void,
): Promise<Pick<Fixtures, "queueSlug" | "allocationOrderId" | "importCsv">> {
  const next = seededRandom(23);
  const now = Date.now();
  const accounts = Array.from({ length: QUEUE_ACCOUNTS }, (_, i) => ({ id: crypto.randomUUID(), slug: `queue-${i}` }));
  await insertRows(
    d1,
    "customers",
    ["id", "slug", "name", "created_at", "updated_at"],
    accounts.map((a) => [a.id, a.slug, `Queue ${a.slug}`, now, now]),
  );
  let seq = firstSeq;
  const orders: unknown[][] = [];
  const numbers: unknown[][] = [];
  const verifications: unknown[][] = [];
  for (const account of accounts) {
    for (let i = 0; i < OPEN_ORDERS_PER_ACCOUNT; i++) {
      const [countryCode, numberType] = pickPair(next);
      const status = next() < 0.7 ? "pending" : "processing";
      const requestedAt = now - Math.floor(next() * 30 * DAY);
      const quantity = 1 + Math.floor(next() * 50);
      const fulfilled = status === "processing" ? Math.floor(quantity / 2) : 0;
      orders.push(
        orderRow(account.id, {
          id: crypto.randomUUID(),
          seq: seq++,
          countryCode,
          numberType,
          quantity,
          status,
          fulfilledQuantity: fulfilled,
          notes: null,
          requestedAt,
          fulfilledAt: null,
          updatedAt: requestedAt,
        }),
      );
    }
    // A fulfilled order whose numbers are each being verified.
    const orderId = crypto.randomUUID();
    const fulfilledAt = now - Math.floor(next() * 60 * DAY);
    orders.push(
      orderRow(account.id, {
        id: orderId,
        seq: seq++,
        countryCode: "US",
        numberType: "mobile",
        quantity: VERIFICATIONS_PER_ACCOUNT,
        status: "fulfilled",
        fulfilledQuantity: VERIFICATIONS_PER_ACCOUNT,
        notes: null,
        requestedAt: fulfilledAt,
        fulfilledAt,
        updatedAt: fulfilledAt,
      }),
    );
    for (let i = 0; i < VERIFICATIONS_PER_ACCOUNT; i++) {
      const numberId = crypto.randomUUID();
      numbers.push([
        numberId,
        account.id,
        orderId,
        `+1666${String(numbers.length).padStart(7, "0")}`,
        "US",
        "mobile",
        "active",
        fulfilledAt,
        fulfilledAt,
      ]);
      const submittedAt = fulfilledAt + Math.floor(next() * DAY);
      verifications.push([
        crypto.randomUUID(),
        account.id,
        numberId,
        next() < 0.7 ? "pending" : "under_review",
        "individual",
        "1 Queue St",
        "Austin",
        "TX",
        "78701",
        "US",
        submittedAt,
      ]);
    }
  }
  await insertRows(d1, "orders", ORDER_COLUMNS, orders);
  await insertRows(d1, "numbers", NUMBER_COLUMNS, numbers);
  await insertRows(d1, "kyc_verifications", AWAITING_VERIFICATION_COLUMNS, verifications);
  log(
    `${QUEUE_ACCOUNTS} queue accounts: ${QUEUE_ACCOUNTS * OPEN_ORDERS_PER_ACCOUNT} open orders, ${verifications.length} verifications awaiting review`,
  );

  // The stock: every pair, weighted as the orders are, imported in ten imports over the last year.
  const stock: unknown[][] = [];
  // Ten imports, each with its id as the API gives one.
  const importIds = Array.from({ length: 10 }, () => crypto.randomUUID());
  for (let i = 0; i < STOCK_NUMBERS; i++) {
    const [countryCode, numberType] = pickPair(next);
    const batch = Math.floor(i / (STOCK_NUMBERS / 10));
    stock.push([`+1777${String(i).padStart(7, "0")}`, countryCode, numberType, importIds[batch], now - (10 - batch) * 30 * DAY]);
  }
  await insertRows(d1, "stock_numbers", ["phone_number", "country_code", "number_type", "import_id", "imported_at"], stock);
  log(`stock: ${STOCK_NUMBERS} numbers`);

  // A pending order of the pair the stock holds most of, to allocate from stock in one request.
  const allocationOrderId = crypto.randomUUID();
  await insertRows(d1, "orders", ORDER_COLUMNS, [
    orderRow(accounts[0]!.id, {
      id: allocationOrderId,
      seq: seq++,
      countryCode: "US",
      numberType: "mobile",
      quantity: ALLOCATION_FROM_STOCK,
      status: "pending",
      fulfilledQuantity: 0,
      notes: null,
      requestedAt: now,
      fulfilledAt: null,
      updatedAt: now,
    }),
  ]);
  const importCsv = `phone_number,country_code,number_type\n${Array.from(
    { length: IMPORTED_NUMBERS },
    (_, i) => `+1888${String(i).padStart(7, "0")},US,mobile`,
  ).join("\n")}\n`;
  return { queueSlug: accounts[1]!.slug, allocationOrderId, importCsv };
}
