// The local seed: the default orderable catalog, the demo account with its API key, and a few demo orders.
// Every statement is idempotent, so `npm start` can run it on every start.
import { displayParts, sha256Hex } from "../src/lib/api-key.ts";

export const DEMO_SLUG = "demo";

/** Pairs that real operators sell in these countries. */
export const DEFAULT_CATALOG: Record<string, string[]> = {
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

/** The demo account's numbers, with fixed ids so the README's KYC walk-through can name one. */
export const DEMO_NUMBERS = [
  { id: "5e1d0000-0000-4000-8000-000000000001", phoneNumber: "+14155550100" },
  { id: "5e1d0000-0000-4000-8000-000000000002", phoneNumber: "+14155550101" },
];
const DEMO_NUMBERS_NOTE = "Demo numbers";

const DEMO_ORDERS = [
  { numberType: "mobile", countryCode: "US", quantity: 250, notes: "Support line numbers for the Austin team" },
  { numberType: "landline", countryCode: "GB", quantity: 40, notes: null },
  { numberType: "toll_free", countryCode: "DE", quantity: 5, notes: "Hotline" },
];

function quote(value: string | number | null): string {
  if (value === null) return "NULL";
  if (typeof value === "number") return String(value);
  return `'${value.replaceAll("'", "''")}'`;
}

export async function seedSql(demoKey: string, now: number = Date.now()): Promise<string> {
  const statements: string[] = [];
  for (const [country, types] of Object.entries(DEFAULT_CATALOG)) {
    for (const type of types) {
      statements.push(
        `INSERT INTO catalog (country_code, number_type, created_at) VALUES (${quote(country)}, ${quote(type)}, ${now}) ON CONFLICT DO NOTHING;`,
      );
    }
  }
  statements.push(
    `INSERT INTO customers (id, slug, name, created_at, updated_at) VALUES (${quote(crypto.randomUUID())}, ${quote(DEMO_SLUG)}, 'Demo Telecom', ${now}, ${now}) ON CONFLICT (slug) DO NOTHING;`,
  );
  const demoId = `(SELECT id FROM customers WHERE slug = ${quote(DEMO_SLUG)})`;
  const { prefix, lastFour } = displayParts(demoKey);
  statements.push(
    `INSERT INTO api_keys (id, customer_id, name, prefix, last_four, key_hash, created_at) VALUES (${quote(crypto.randomUUID())}, ${demoId}, 'demo', ${quote(prefix)}, ${quote(lastFour)}, ${quote(await sha256Hex(demoKey))}, ${now}) ON CONFLICT (key_hash) DO NOTHING;`,
  );
  DEMO_ORDERS.forEach((order, i) => {
    const at = now - (DEMO_ORDERS.length - i) * 3_600_000;
    statements.push(
      `INSERT INTO orders (id, customer_id, order_seq, number_type, country_code, quantity, status, fulfilled_quantity, notes, requested_at, created_at, updated_at) ` +
        `SELECT ${quote(crypto.randomUUID())}, ${demoId}, (SELECT coalesce(max(order_seq), 0) + 1 FROM orders), ${quote(order.numberType)}, ${quote(order.countryCode)}, ${order.quantity}, 'pending', 0, ${quote(order.notes)}, ${at}, ${at}, ${at} ` +
        `WHERE (SELECT count(*) FROM orders WHERE customer_id = ${demoId}) < ${i + 1};`,
    );
  });
  // A fulfilled order holding the demo numbers.
  const fulfilledAt = now - 1_800_000;
  statements.push(
    `INSERT INTO orders (id, customer_id, order_seq, number_type, country_code, quantity, status, fulfilled_quantity, notes, requested_at, fulfilled_at, created_at, updated_at) ` +
      `SELECT ${quote(crypto.randomUUID())}, ${demoId}, (SELECT coalesce(max(order_seq), 0) + 1 FROM orders), 'mobile', 'US', ${DEMO_NUMBERS.length}, 'fulfilled', ${DEMO_NUMBERS.length}, ${quote(DEMO_NUMBERS_NOTE)}, ${fulfilledAt - 3_600_000}, ${fulfilledAt}, ${fulfilledAt - 3_600_000}, ${fulfilledAt} ` +
      `WHERE NOT EXISTS (SELECT 1 FROM orders WHERE customer_id = ${demoId} AND notes = ${quote(DEMO_NUMBERS_NOTE)});`,
  );
  const demoOrderId = `(SELECT id FROM orders WHERE customer_id = ${demoId} AND notes = ${quote(DEMO_NUMBERS_NOTE)})`;
  for (const number of DEMO_NUMBERS) {
    statements.push(
      `INSERT INTO numbers (id, customer_id, order_id, phone_number, country_code, number_type, status, created_at, updated_at) ` +
        `VALUES (${quote(number.id)}, ${demoId}, ${demoOrderId}, ${quote(number.phoneNumber)}, 'US', 'mobile', 'active', ${fulfilledAt}, ${fulfilledAt}) ON CONFLICT DO NOTHING;`,
    );
  }
  return statements.join("\n");
}
