// The local demo data, written through the stores as the API writes it: the orderable catalog, the demo account with
// its API key, a few orders, and two allocated numbers to verify. Safe on every start: an existing account is kept.
import { addCatalogPair } from "../src/catalog/store.ts";
import { createApiKey, createCustomer, findCustomerBySlug, findKeyOwnerByHash } from "../src/customers/store.ts";
import type { Database } from "../src/db/client.ts";
import { valueOrThrow } from "../src/db/outcome.ts";
import { pageWindow } from "../src/db/paging.ts";
import type { AuditContext } from "../src/env.ts";
import { sha256Hex } from "../src/lib/api-key.ts";
import { allocateNumbers, listNumbers } from "../src/numbers/store.ts";
import { createOrder, type NewOrder } from "../src/orders/store.ts";
import { putStaff } from "../src/staff/store.ts";
import { issueInvitation } from "../src/users/credentials.ts";
import { createUser, findUserByEmail } from "../src/users/store.ts";
import { Outbox } from "../src/webhooks/outbox.ts";

export const DEMO_SLUG = "demo";
/** The demo account's owner, who reaches the portal through the invitation link npm start prints. */
export const DEMO_OWNER_EMAIL = "owner@demo.example";

/** Pairs that real operators sell in these countries. */
const DEFAULT_CATALOG: Record<string, string[]> = {
  US: ["mobile", "landline", "toll_free"],
  CA: ["mobile", "landline", "toll_free"],
  GB: ["mobile", "landline", "toll_free"],
  DE: ["mobile", "landline", "toll_free"],
  FR: ["mobile", "landline", "toll_free"],
  NL: ["mobile", "landline"],
  ES: ["mobile", "landline", "toll_free"],
  IT: ["landline", "toll_free"],
  AU: ["mobile", "landline", "toll_free"],
  JP: ["landline", "toll_free"],
};

const DEMO_ORDERS: NewOrder[] = [
  { numberType: "mobile", countryCode: "US", quantity: 250, notes: "Support line numbers for the Austin team" },
  { numberType: "landline", countryCode: "GB", quantity: 40, notes: null },
  { numberType: "toll_free", countryCode: "DE", quantity: 5, notes: "Hotline" },
];
const DEMO_PHONE_NUMBERS = ["+14155550100", "+14155550101"];
const HOUR = 3_600_000;

/** Who the audit log says made what npm start seeds: operator automation, as the ADMIN_TOKEN is. */
export const SEEDING: AuditContext = { actor: { type: "token" }, requestId: "npm-start" };

export interface DemoAccount {
  apiKey: string;
  /** A fresh invitation token of the demo owner (each start makes one; it also resets a password set before). */
  ownerInvitation: string;
  numbers: { id: string; phoneNumber: string }[];
}

/** The data a new demo account starts with: orders over the last hours, one of them fulfilled with the demo numbers. */
async function seedNewAccount(db: Database, customerId: string, now: number): Promise<void> {
  // A new account has no webhook endpoint, so its events have no deliveries to send.
  const outbox = new Outbox();
  for (const [i, order] of DEMO_ORDERS.entries()) {
    valueOrThrow(
      await createOrder(db, outbox, customerId, order, now - (DEMO_ORDERS.length + 1 - i) * HOUR),
      "seeding the demo account: an order",
    );
  }
  const numbersOrder = { numberType: "mobile", countryCode: "US", quantity: DEMO_PHONE_NUMBERS.length, notes: "Demo numbers" };
  const order = valueOrThrow(
    await createOrder(db, outbox, customerId, numbersOrder, now - HOUR),
    "seeding the demo account: the numbers' order",
  );
  valueOrThrow(
    await allocateNumbers(db, outbox, SEEDING, order.id, { phoneNumbers: DEMO_PHONE_NUMBERS }, now - HOUR / 2),
    "seeding the demo account: the allocation",
  );
}

/** A key still good for the demo account, or undefined. */
async function stillValid(db: Database, key: string | undefined): Promise<string | undefined> {
  if (key === undefined) return undefined;
  const owner = await findKeyOwnerByHash(db, await sha256Hex(key));
  return owner?.customerSlug === DEMO_SLUG && owner.revokedAt === null ? key : undefined;
}

/** Seeds what is missing and returns the demo account's API key (the saved one while it is valid) and numbers. */
export async function seedDemo(db: Database, savedKey: string | undefined, now: number = Date.now()): Promise<DemoAccount> {
  for (const [countryCode, types] of Object.entries(DEFAULT_CATALOG)) {
    for (const numberType of types) await addCatalogPair(db, SEEDING, { countryCode, numberType }, now);
  }
  const created = await createCustomer(db, SEEDING, { slug: DEMO_SLUG, name: "Demo Telecom" }, now);
  if (created.ok) await seedNewAccount(db, created.value.id, now);
  const customer = created.ok ? created.value : await findCustomerBySlug(db, DEMO_SLUG);
  if (!customer) throw new Error("seeding the demo account: it exists yet cannot be found");

  const apiKey =
    (await stillValid(db, savedKey)) ??
    valueOrThrow(await createApiKey(db, SEEDING, DEMO_SLUG, "demo", now), "seeding the demo account: the API key").key;
  const numbers = await listNumbers(db, customer.id, { sortBy: "phone_number", sortOrder: "asc" }, pageWindow(1, 10));
  const owner =
    (await findUserByEmail(db, customer.id, DEMO_OWNER_EMAIL)) ??
    valueOrThrow(
      await createUser(
        db,
        SEEDING,
        DEMO_SLUG,
        { email: DEMO_OWNER_EMAIL, name: "Demo Owner", role: "owner", status: "active" },
        now,
      ),
      "seeding the demo account: its owner",
    );
  const invitation = valueOrThrow(
    await issueInvitation(db, SEEDING, owner.id, now),
    "seeding the demo account: the owner's invitation",
  );
  return {
    apiKey,
    ownerInvitation: invitation.token,
    numbers: numbers.rows.map(({ number }) => ({ id: number.id, phoneNumber: number.phoneNumber })),
  };
}

/** The local staff admin npm start signs in as: the operator's person in the console and on /admin. */
export const LOCAL_STAFF_EMAIL = "admin@operator.example";

/** The local staff admin, made once (npm start's Access stand-in names them). */
export async function seedStaffAdmin(db: Database, now: number = Date.now()): Promise<void> {
  valueOrThrow(
    await putStaff(db, SEEDING, LOCAL_STAFF_EMAIL, { name: "Local Admin", role: "admin", status: "enabled" }, now),
    "seeding the local staff admin",
  );
}
