// The benchmark's data set: one large account (100,000 orders, 20,000 numbers, 1,000 users) among 20 accounts of
// 10,000 orders; the large account's compliance (a profile with 9,000 numbers, approvals expiring over the next year,
// requirements on the US pairs); and for the operator, 1,000 accounts holding 100,000 open orders and 10,000
// verifications awaiting review, and a stock of 1,000,000 numbers. Generated deterministically and written through a
// fast path (one INSERT … SELECT … FROM json_each(?) per thousand rows); the large account, its keys and its pending
// verifications go through the stores.

import { addCatalogPair } from "../../src/catalog/store.ts";
import { createApiKey, createCustomer } from "../../src/customers/store.ts";
import type { Database } from "../../src/db/client.ts";
import { Outbox } from "../../src/db/outbox.ts";
import { valueOrThrow } from "../../src/db/outcome.ts";
import type { OrderStatus, Requirements } from "../../src/db/schema.ts";
import { submitVerification } from "../../src/kyc/store.ts";
import { seededRandom } from "../../src/lib/seeded-random.ts";
import { SEEDING } from "../seed.ts";

const LARGE_ORDERS = 100_000;
const OTHER_ACCOUNTS = 20;
const OTHER_ORDERS = 10_000;
const LARGE_NUMBERS = 20_000;
const LARGE_USERS = 1_000;
/** API keys of the large account: the load is spread over them so no key reaches its per-minute budget. */
const LARGE_KEYS = 200;
/** Numbers of the large account with a pending verification, for the KYC read and upload scenarios. */
const VERIFIED_NUMBERS = 100;

/**
 * The large account's compliance: its main profile (approved, the numbers of its older orders attached), numbers with
 * an approval of their own and two small profiles, all expiring over the next year; and a profile with no number yet,
 * that the benchmark attaches the account's newest numbers to in one request.
 */
const MAIN_PROFILE_NUMBERS = 9_000;
const MAIN_PROFILE_EXPIRES_IN_DAYS = 250;
const OWN_APPROVALS = 700;
const SMALL_PROFILES: { name: string; numbers: number; expiresInDays: number }[] = [
  { name: "Field teams", numbers: 100, expiresInDays: 40 },
  { name: "Store hotlines", numbers: 100, expiresInDays: 200 },
];
/** The numbers attached to a profile in one request: none has a verification or a profile. */
export const ATTACH_NUMBERS = 10_000;
/** The numbers list's kyc_expires_before is this many days ahead (a quarter). */
const EXPIRY_WINDOW_DAYS = 91;
/** The requirements of every US pair (the evaluated number's among them); the account's profiles meet them. */
const US_REQUIREMENTS: Requirements = {
  verification_types: ["individual", "business"],
  address_in_country: true,
  fields: { individual: ["email"], business: ["company_name", "tax_id"] },
  documents: [
    {
      key: "registration",
      document_types: ["business_registration"],
      applies_to: ["business"],
      description: "The company's certificate of incorporation",
    },
    {
      key: "proof_of_address",
      document_types: ["address_proof", "utility_bill", "bank_statement"],
      applies_to: ["individual", "business"],
      description: "A utility bill or bank statement at the address",
    },
  ],
};

/** The operator's side: accounts with open orders (and a fulfilled order each, whose numbers are being verified). */
const QUEUE_ACCOUNTS = 1_000;
const OPEN_ORDERS_PER_ACCOUNT = 100;
const VERIFICATIONS_PER_ACCOUNT = 10;
const STOCK_NUMBERS = 1_000_000;
/** The order an allocation of this many numbers from stock fulfils at once. */
export const ALLOCATION_FROM_STOCK = 10_000;
/** The numbers an import through the API brings in one request. */
export const IMPORTED_NUMBERS = 100_000;

const ROWS_PER_STATEMENT = 1_000;
const DAY = 86_400_000;
/** Orders are spread over the two years before this instant. */
const END = Date.parse("2026-11-01T00:00:00.000Z");
const SPAN = 730 * DAY;

/** Ten country/type pairs with the weights a real account shows: most orders in a few pairs. */
export const PAIRS: [country: string, type: string, weight: number][] = [
  ["US", "mobile", 25],
  ["US", "landline", 12],
  ["US", "toll_free", 8],
  ["GB", "mobile", 12],
  ["GB", "landline", 8],
  ["DE", "mobile", 10],
  ["FR", "mobile", 8],
  ["NL", "landline", 7],
  ["AU", "mobile", 6],
  ["JP", "toll_free", 4],
];
const STATUSES: [OrderStatus, number][] = [
  ["pending", 15],
  ["processing", 8],
  ["fulfilled", 65],
  ["cancelled", 12],
];
/** Berlin's notes are about a quarter of all orders, the term of the broad search scenario. */
const TEAMS: [string, number][] = [
  ["Berlin", 28],
  ["Austin", 24],
  ["Lisbon", 18],
  ["São Paulo", 12],
  ["Zürich", 10],
  ["Malmö", 8],
];
const PURPOSES = ["support line", "sales outreach", "field team", "call centre", "SMS verification", "store hotline"];

function weighted<T>(
  next: () => number,
  choices: readonly (readonly [...unknown[], number])[],
  pick: (choice: readonly unknown[]) => T,
): T {
  const total = choices.reduce((sum, choice) => sum + (choice.at(-1) as number), 0);
  let roll = next() * total;
  for (const choice of choices) {
    roll -= choice.at(-1) as number;
    if (roll < 0) return pick(choice);
  }
  return pick(choices.at(-1)!);
}

interface OrderSeed {
  id: string;
  seq: number;
  countryCode: string;
  numberType: string;
  quantity: number;
  status: OrderStatus;
  fulfilledQuantity: number;
  notes: string | null;
  requestedAt: number;
  fulfilledAt: number | null;
  updatedAt: number;
}

/** A (country_code, number_type) pair, weighted as a real account orders them. */
function pickPair(next: () => number): [string, string] {
  return weighted(next, PAIRS, (c) => [c[0] as string, c[1] as string]);
}

/** An account's orders, oldest first, numbered from `firstSeq` (the sequence grows with time, as in the API). */
function generateOrders(count: number, firstSeq: number, seed: number): OrderSeed[] {
  const next = seededRandom(seed);
  const times = Array.from({ length: count }, () => END - Math.floor(next() * SPAN)).sort((a, b) => a - b);
  return times.map((requestedAt, i) => {
    const [countryCode, numberType] = pickPair(next);
    const status = weighted(next, STATUSES, (c) => c[0] as OrderStatus);
    // Log-uniform from 1 to 10,000: many small orders, a few large ones.
    const quantity = Math.min(10_000, Math.max(1, Math.round(Math.exp(next() * Math.log(10_000)))));
    const fulfilledAt = status === "fulfilled" ? requestedAt + Math.floor(next() * 3 * DAY) : null;
    const team = weighted(next, TEAMS, (c) => c[0] as string);
    const purpose = PURPOSES[Math.floor(next() * PURPOSES.length)]!;
    const notes = next() < 0.9 ? `${team} ${purpose}, campaign ${1 + Math.floor(next() * 2000)}` : null;
    return {
      id: crypto.randomUUID(),
      seq: firstSeq + i,
      countryCode,
      numberType,
      quantity,
      status,
      fulfilledQuantity: status === "fulfilled" ? quantity : status === "processing" ? Math.floor(quantity / 2) : 0,
      notes,
      requestedAt,
      fulfilledAt,
      updatedAt: fulfilledAt ?? requestedAt,
    };
  });
}

/** Rows into a table, a thousand per statement: one JSON parameter carries them (D1 binds at most 100 a statement). */
export async function insertRows(
  d1: D1Database,
  table: string,
  columns: readonly string[],
  rows: readonly unknown[][],
): Promise<void> {
  const values = columns.map((_, i) => `value ->> ${i}`).join(", ");
  for (let start = 0; start < rows.length; start += ROWS_PER_STATEMENT) {
    await d1
      .prepare(`INSERT INTO ${table} (${columns.join(", ")}) SELECT ${values} FROM json_each(?)`)
      .bind(JSON.stringify(rows.slice(start, start + ROWS_PER_STATEMENT)))
      .run();
  }
}

/** The columns of an order row as the seeds write them. */
export const ORDER_COLUMNS = [
  "id",
  "customer_id",
  "order_seq",
  "number_type",
  "country_code",
  "quantity",
  "status",
  "fulfilled_quantity",
  "notes",
  "requested_at",
  "fulfilled_at",
  "created_at",
  "updated_at",
];

/** The columns of a number row as the seeds write them. */
export const NUMBER_COLUMNS = [
  "id",
  "customer_id",
  "order_id",
  "phone_number",
  "country_code",
  "number_type",
  "status",
  "created_at",
  "updated_at",
];

/** An order's row in ORDER_COLUMNS' order (created when requested). */
export function orderRow(customerId: string, o: OrderSeed): unknown[] {
  return [
    o.id,
    customerId,
    o.seq,
    o.numberType,
    o.countryCode,
    o.quantity,
    o.status,
    o.fulfilledQuantity,
    o.notes,
    o.requestedAt,
    o.fulfilledAt,
    o.requestedAt,
    o.updatedAt,
  ];
}

async function insertOrders(d1: D1Database, customerId: string, rows: OrderSeed[]): Promise<void> {
  await insertRows(
    d1,
    "orders",
    ORDER_COLUMNS,
    rows.map((o) => orderRow(customerId, o)),
  );
}

interface NumberSeed {
  id: string;
  countryCode: string;
  numberType: string;
  status: string;
}

/** Numbers of the large account, allocated from its fulfilled orders in order (so oldest first). */
async function insertNumbers(d1: D1Database, customerId: string, orders: OrderSeed[]): Promise<NumberSeed[]> {
  const next = seededRandom(7);
  const rows: unknown[][] = [];
  for (const order of orders) {
    if (order.status !== "fulfilled") continue;
    for (let i = 0; i < order.quantity && rows.length < LARGE_NUMBERS; i++) {
      const status = next() < 0.9 ? "active" : next() < 0.5 ? "suspended" : "released";
      const phone = `+1555${String(rows.length).padStart(7, "0")}`;
      rows.push([
        crypto.randomUUID(),
        customerId,
        order.id,
        phone,
        order.countryCode,
        order.numberType,
        status,
        order.fulfilledAt,
        order.fulfilledAt,
      ]);
    }
    if (rows.length >= LARGE_NUMBERS) break;
  }
  await insertRows(d1, "numbers", NUMBER_COLUMNS, rows);
  return rows.map((row) => ({
    id: row[0] as string,
    countryCode: row[4] as string,
    numberType: row[5] as string,
    status: row[6] as string,
  }));
}

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

export interface Fixtures {
  /** One of the operator's queue accounts, for the queues filtered by account. */
  queueSlug: string;
  /** A pending order of ALLOCATION_FROM_STOCK numbers of a pair the stock holds plenty of. */
  allocationOrderId: string;
  /** The stock import's CSV body: IMPORTED_NUMBERS numbers no other row holds. */
  importCsv: string;
  slug: string;
  customerId: string;
  /** Plaintext keys of the large account. */
  keys: string[];
  /** A pending order of the large account (get and update scenarios). */
  pendingOrderId: string;
  /** Numbers of the large account with a pending verification. */
  verifiedNumberIds: string[];
  /** The large account's main profile, with MAIN_PROFILE_NUMBERS numbers attached. */
  mainProfileId: string;
  mainProfileNumbers: number;
  /** A number of the main profile whose pair (a US one) has requirements. */
  evaluatedNumberId: string;
  /** The numbers list's kyc_expires_before (YYYY-MM-DD), and how many of the account's numbers it matches. */
  expiresBefore: string;
  expiringNumbers: number;
  /** A profile with no number, and ATTACH_NUMBERS numbers of the account with no verification, to attach to it. */
  attachProfileId: string;
  attachNumberIds: string[];
}

/** What a refused write while seeding means: the state the benchmark writes into was not empty. */
const NOT_FRESH = "seeding the benchmark state (it must start empty)";

/** Writes the whole data set; `log` reports progress. */
export async function seedDataset(db: Database, d1: D1Database, log: (line: string) => void): Promise<Fixtures> {
  const now = Date.now();
  for (const [countryCode, numberType] of PAIRS) await addCatalogPair(db, SEEDING, { countryCode, numberType }, now);

  const large = valueOrThrow(await createCustomer(db, SEEDING, { slug: "large", name: "Large Telecom" }, now), NOT_FRESH);
  const keys: string[] = [];
  for (let i = 0; i < LARGE_KEYS; i++)
    keys.push(valueOrThrow(await createApiKey(db, SEEDING, large.slug, `bench ${i}`, now), NOT_FRESH).key);

  let seq = 1;
  const largeOrders = generateOrders(LARGE_ORDERS, seq, 1);
  seq += LARGE_ORDERS;
  await insertOrders(d1, large.id, largeOrders);
  log(`large account: ${LARGE_ORDERS} orders`);
  for (let i = 0; i < OTHER_ACCOUNTS; i++) {
    const other = valueOrThrow(await createCustomer(db, SEEDING, { slug: `other-${i}`, name: `Other ${i}` }, now), NOT_FRESH);
    await insertOrders(d1, other.id, generateOrders(OTHER_ORDERS, seq, 100 + i));
    seq += OTHER_ORDERS;
  }
  log(`${OTHER_ACCOUNTS} other accounts: ${OTHER_ORDERS} orders each`);

  const largeNumbers = await insertNumbers(d1, large.id, largeOrders);
  const numberIds = largeNumbers.map((n) => n.id);
  await insertUsers(d1, large.id);
  log(`large account: ${numberIds.length} numbers, ${LARGE_USERS} users`);

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
  const pendingOrderId = largeOrders.findLast((o) => o.status === "pending")!.id;
  // The numbers with a pending verification of their own take no part in the compliance data.
  const compliance = await seedCompliance(
    d1,
    large.id,
    largeNumbers.filter((n) => !verified.includes(n)),
    now,
    log,
  );
  const operator = await seedOperatorData(d1, seq, log);
  return { slug: "large", customerId: large.id, keys, pendingOrderId, verifiedNumberIds, ...compliance, ...operator };
}

/** The columns of a verification (a number's own, or a profile) as the compliance seed writes them. */
const VERIFICATION_COLUMNS = [
  "id",
  "customer_id",
  "number_id",
  "name",
  "status",
  "type",
  "address_line_1",
  "city",
  "state_province",
  "postal_code",
  "country",
  "company_name",
  "tax_id",
  "email",
  "submitted_at",
  "reviewed_at",
  "expires_at",
];

/** The columns of a number's verification awaiting review: no profile name, company, review or expiry. */
export const AWAITING_VERIFICATION_COLUMNS = VERIFICATION_COLUMNS.filter(
  (column) => !["name", "company_name", "tax_id", "email", "reviewed_at", "expires_at"].includes(column),
);

/** An approved verification expiring at `expiresAt` (approved 365 days before, submitted two days before that). */
function approvedRow(customerId: string, numberId: string | null, name: string | null, expiresAt: number): unknown[] {
  const reviewedAt = expiresAt - 365 * DAY;
  return [
    crypto.randomUUID(),
    customerId,
    numberId,
    name,
    "approved",
    "business",
    "1 Market St",
    "San Francisco",
    "CA",
    "94105",
    "US",
    "Large Telecom Inc.",
    "94-1234567",
    null,
    reviewedAt - 2 * DAY,
    reviewedAt,
    expiresAt,
  ];
}

/** A profile's verified documents: the company's registration and a proof of address, as the US pairs ask. */
function profileDocuments(customerId: string, profileId: string, uploadedAt: number): unknown[][] {
  const document = (type: string, filename: string, expirationDate: string | null) => {
    const id = crypto.randomUUID();
    return [
      id,
      profileId,
      customerId,
      type,
      filename,
      180_000,
      "application/pdf",
      expirationDate,
      "verified",
      `kyc/${customerId}/${profileId}/${id}`,
      uploadedAt,
    ];
  };
  return [
    document("business_registration", "incorporation.pdf", null),
    document("address_proof", "utility-bill.pdf", new Date(uploadedAt + 540 * DAY).toISOString().slice(0, 10)),
  ];
}

/**
 * The large account's compliance, from `numbers` (oldest first, none with a verification): some spread over the
 * account get an approval of their own or join a small profile; of the rest, the older ones join the main profile and
 * the newest ATTACH_NUMBERS stay free for the attach. The US pairs get requirements that the profiles meet (their
 * documents are rows only: nothing reads their bytes).
 */
async function seedCompliance(
  d1: D1Database,
  customerId: string,
  numbers: NumberSeed[],
  now: number,
  log: (line: string) => void,
): Promise<
  Pick<
    Fixtures,
    | "mainProfileId"
    | "mainProfileNumbers"
    | "evaluatedNumberId"
    | "expiresBefore"
    | "expiringNumbers"
    | "attachProfileId"
    | "attachNumberIds"
  >
> {
  const spreadCount = OWN_APPROVALS + SMALL_PROFILES.reduce((sum, p) => sum + p.numbers, 0);
  if (spreadCount + MAIN_PROFILE_NUMBERS + ATTACH_NUMBERS > numbers.length) throw new Error("too few numbers to seed");
  const next = seededRandom(29);
  // A seeded shuffle of the positions: the first `spreadCount` are spread over the account's whole history.
  const positions = numbers.map((_, i) => i);
  for (let i = positions.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [positions[i], positions[j]] = [positions[j]!, positions[i]!];
  }
  const spread = positions.slice(0, spreadCount).map((i) => numbers[i]!);
  const rest = positions
    .slice(spreadCount)
    .sort((a, b) => a - b)
    .map((i) => numbers[i]!);
  const mainNumbers = rest.slice(0, MAIN_PROFILE_NUMBERS);
  const attachNumbers = rest.slice(-ATTACH_NUMBERS);

  const expiresBefore = new Date(now + EXPIRY_WINDOW_DAYS * DAY).toISOString().slice(0, 10);
  const cutoff = Date.parse(`${expiresBefore}T00:00:00.000Z`);
  let expiringNumbers = 0;
  const verifications: unknown[][] = [];
  const attachments: unknown[][] = [];
  const documents: unknown[][] = [];
  const addProfile = (name: string, expiresAt: number, attached: NumberSeed[]) => {
    const row = approvedRow(customerId, null, name, expiresAt);
    const id = row[0] as string;
    verifications.push(row);
    documents.push(...profileDocuments(customerId, id, row[14] as number));
    for (const number of attached) attachments.push([number.id, crypto.randomUUID(), id, customerId, row[15]]);
    if (expiresAt < cutoff) expiringNumbers += attached.length;
    return id;
  };
  // Own approvals expiring uniformly over the next year (each approved a year before it expires).
  for (const number of spread.slice(0, OWN_APPROVALS)) {
    const expiresAt = now + Math.floor((0.01 + next() * 0.99) * 365 * DAY);
    verifications.push(approvedRow(customerId, number.id, null, expiresAt));
    if (expiresAt < cutoff) expiringNumbers++;
  }
  let from = OWN_APPROVALS;
  for (const profile of SMALL_PROFILES) {
    addProfile(profile.name, now + profile.expiresInDays * DAY, spread.slice(from, from + profile.numbers));
    from += profile.numbers;
  }
  const mainProfileId = addProfile("Large Telecom Inc. (all teams)", now + MAIN_PROFILE_EXPIRES_IN_DAYS * DAY, mainNumbers);
  // The profile the attach fills: approved this week, no number yet.
  const attachProfileId = addProfile("Large Telecom Inc. (2026 numbers)", now + 360 * DAY, []);

  await insertRows(d1, "kyc_verifications", VERIFICATION_COLUMNS, verifications);
  await insertRows(d1, "kyc_profile_numbers", ["number_id", "kyc_id", "profile_id", "customer_id", "attached_at"], attachments);
  await insertRows(
    d1,
    "kyc_documents",
    [
      "id",
      "kyc_id",
      "customer_id",
      "document_type",
      "filename",
      "file_size",
      "mime_type",
      "expiration_date",
      "status",
      "object_key",
      "uploaded_at",
    ],
    documents,
  );
  const evaluated = mainNumbers.find((n) => n.countryCode === "US");
  if (!evaluated) throw new Error("the main profile has no US number");
  await d1.prepare("UPDATE catalog SET requirements = ? WHERE country_code = 'US'").bind(JSON.stringify(US_REQUIREMENTS)).run();
  log(
    `compliance: a profile with ${mainNumbers.length} numbers, ${SMALL_PROFILES.length} small profiles, ` +
      `${OWN_APPROVALS} own approvals; kyc_expires_before=${expiresBefore} matches ${expiringNumbers} numbers`,
  );
  return {
    mainProfileId,
    mainProfileNumbers: mainNumbers.length,
    evaluatedNumberId: evaluated.id,
    expiresBefore,
    expiringNumbers,
    attachProfileId,
    attachNumberIds: attachNumbers.map((n) => n.id),
  };
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
