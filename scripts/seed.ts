// The demo data `npm start` seeds, written through the stores as the API writes them; safe to run on every start.

import { requirementsBody } from "../src/catalog/schemas.ts";
import { addCatalogPair, findCatalogPair, writeRequirements } from "../src/catalog/store.ts";
import { createApiKey, createCustomer, findCustomerBySlug, findKeyOwnerByHash } from "../src/customers/store.ts";
import type { AuditContext } from "../src/db/audit.ts";
import type { Database } from "../src/db/client.ts";
import { Outbox } from "../src/db/outbox.ts";
import { valueOrThrow } from "../src/db/outcome.ts";
import { pageWindow } from "../src/db/paging.ts";
import { sha256Hex } from "../src/lib/api-key.ts";
import { listNumbers } from "../src/numbers/store.ts";
import { allocateNumbers } from "../src/orders/allocation-store.ts";
import { createOrder, type NewOrder } from "../src/orders/store.ts";
import { putStaff } from "../src/staff/store.ts";
import { issueInvitation } from "../src/users/credentials.ts";
import { createUser, findUserByEmail } from "../src/users/store.ts";

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

/**
 * The pair whose numbers need a verification in the demo, what it requires (validated by the API's schema, as the
 * operator's PUT would be), and the demo's numbers of it: Berlin numbers of the range set aside for fiction.
 */
const COMPLIANCE_PAIR = { countryCode: "DE", numberType: "landline" };
const COMPLIANCE_REQUIREMENTS = requirementsBody.parse({
  verification_types: ["individual", "business"],
  address_in_country: true,
  fields: { individual: [], business: ["tax_id"] },
  documents: [
    {
      key: "address_proof",
      document_types: ["address_proof", "utility_bill", "bank_statement"],
      applies_to: ["individual", "business"],
      description: "A proof of the address in Germany, under 6 months old",
    },
    {
      key: "company_register",
      document_types: ["business_registration"],
      applies_to: ["business"],
      description: "An extract of the commercial register (Handelsregisterauszug)",
    },
  ],
});
const COMPLIANCE_PHONE_NUMBERS = ["+493023125100", "+493023125101"];
const HOUR = 3_600_000;

/** Who the audit log says made what npm start seeds: operator automation, as the ADMIN_TOKEN is. */
export const SEEDING: AuditContext = { actor: { type: "token" }, requestId: "npm-start" };

export interface DemoNumber {
  id: string;
  phoneNumber: string;
  countryCode: string;
  numberType: string;
}

export interface DemoAccount {
  apiKey: string;
  /**
   * A new invitation token of the demo owner. Each start makes one and voids the one before; a password set before
   * keeps working until the link is used to set another.
   */
  ownerInvitation: string;
  /** A demo number of the pair with requirements: its evaluation shows what a verification must hold. */
  compliance: DemoNumber;
}

/** An order of these numbers, fulfilled with them. */
async function fulfilledOrder(
  db: Database,
  outbox: Outbox,
  customerId: string,
  pair: { countryCode: string; numberType: string },
  phoneNumbers: string[],
  notes: string,
  now: number,
): Promise<void> {
  const order = valueOrThrow(
    await createOrder(db, outbox, customerId, { ...pair, quantity: phoneNumbers.length, notes }, now - HOUR),
    "seeding the demo account: the numbers' order",
  );
  valueOrThrow(
    await allocateNumbers(db, outbox, SEEDING, order.id, { phoneNumbers }, now - HOUR / 2),
    "seeding the demo account: the allocation",
  );
}

/** The data a new demo account starts with: orders over the last hours, one of them fulfilled with the US numbers. */
async function seedNewAccount(db: Database, outbox: Outbox, customerId: string, now: number): Promise<void> {
  for (const [i, order] of DEMO_ORDERS.entries()) {
    valueOrThrow(
      await createOrder(db, outbox, customerId, order, now - (DEMO_ORDERS.length + 1 - i) * HOUR),
      "seeding the demo account: an order",
    );
  }
  const pair = { countryCode: "US", numberType: "mobile" };
  await fulfilledOrder(db, outbox, customerId, pair, DEMO_PHONE_NUMBERS, "Demo numbers", now);
}

/** The requirements of the compliance pair when it has none, and the account's numbers of it when it has none. */
async function seedCompliance(db: Database, outbox: Outbox, customerId: string, now: number): Promise<DemoNumber> {
  const pair = await findCatalogPair(db, COMPLIANCE_PAIR);
  if (pair?.requirements === null) {
    valueOrThrow(await writeRequirements(db, SEEDING, COMPLIANCE_PAIR, COMPLIANCE_REQUIREMENTS, now), "seeding the requirements");
  }
  const held = () =>
    listNumbers(
      db,
      customerId,
      {
        countryCodes: [COMPLIANCE_PAIR.countryCode],
        numberTypes: [COMPLIANCE_PAIR.numberType],
        sortBy: "phone_number",
        sortOrder: "asc",
      },
      pageWindow(1, 1),
    );
  let numbers = await held();
  if (numbers.rows.length === 0) {
    await fulfilledOrder(db, outbox, customerId, COMPLIANCE_PAIR, COMPLIANCE_PHONE_NUMBERS, "Berlin office", now);
    numbers = await held();
  }
  const [first] = numbers.rows;
  if (!first) throw new Error("seeding the demo account: its German numbers cannot be found");
  const { id, phoneNumber, countryCode, numberType } = first.number;
  return { id, phoneNumber, countryCode, numberType };
}

/** A key still good for the demo account, or undefined. */
async function stillValid(db: Database, key: string | undefined): Promise<string | undefined> {
  if (key === undefined) return undefined;
  const owner = await findKeyOwnerByHash(db, await sha256Hex(key));
  return owner?.customerSlug === DEMO_SLUG && owner.revokedAt === null ? key : undefined;
}

/** Seeds what is missing and returns the demo account's API key (the saved one while it is valid) and a number to verify. */
export async function seedDemo(db: Database, savedKey: string | undefined, now: number = Date.now()): Promise<DemoAccount> {
  for (const [countryCode, types] of Object.entries(DEFAULT_CATALOG)) {
    for (const numberType of types) await addCatalogPair(db, SEEDING, { countryCode, numberType }, now);
  }
  // Nothing here sends deliveries: a new account has no webhook endpoint, and numbers added to an account seeded before
  // are announced to its endpoints (webhooks:listen's) by the scheduled sweep of overdue deliveries, if ever.
  const outbox = new Outbox();
  const created = await createCustomer(db, SEEDING, { slug: DEMO_SLUG, name: "Demo Telecom" }, now);
  if (created.ok) await seedNewAccount(db, outbox, created.value.id, now);
  const customer = created.ok ? created.value : await findCustomerBySlug(db, DEMO_SLUG);
  if (!customer) throw new Error("seeding the demo account: it exists yet cannot be found");
  const compliance = await seedCompliance(db, outbox, customer.id, now);

  const apiKey =
    (await stillValid(db, savedKey)) ??
    valueOrThrow(await createApiKey(db, SEEDING, DEMO_SLUG, "demo", now), "seeding the demo account: the API key").key;
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
  return { apiKey, ownerInvitation: invitation.token, compliance };
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
