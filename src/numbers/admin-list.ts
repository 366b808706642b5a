// The operator's reads of numbers across accounts: the list (newest first) and one number with its account, order,
// verification and history.
import { and, count, desc, eq, gte, inArray, lt, type SQL, sql } from "drizzle-orm";
import { batchByName } from "../db/batch.ts";
import type { Database } from "../db/client.ts";
import type { PageWindow } from "../db/paging.ts";
import { customers, type NumberStatus, numbers, orders } from "../db/schema.ts";
import { findVerificationWithDocuments } from "../kyc/store.ts";
import { countedNumbersTotal, type NumberWithKyc, numbersWithKyc } from "./store.ts";

export interface OperatorNumberQuery {
  customerSlug?: string | undefined;
  statuses?: readonly NumberStatus[] | undefined;
  countryCodes?: readonly string[] | undefined;
  numberTypes?: readonly string[] | undefined;
  /** The start of the E.164 number, with its +. */
  phonePrefix?: string | undefined;
}

/** A number with its account's slug. */
export type NumberOfAccount = NumberWithKyc & { customerSlug: string };

const accountSlug = () =>
  sql<string>`(SELECT ${customers.slug} FROM ${customers} WHERE ${customers.id} = ${numbers.customerId})`.as("customer_slug");

function accountOf(slug: string): SQL {
  return sql`(SELECT ${customers.id} FROM ${customers} WHERE ${eq(customers.slug, slug)})`;
}

function listConditions(q: OperatorNumberQuery): SQL | undefined {
  return and(
    q.customerSlug === undefined ? undefined : eq(numbers.customerId, accountOf(q.customerSlug)),
    q.statuses && inArray(numbers.status, q.statuses),
    q.countryCodes && inArray(numbers.countryCode, q.countryCodes),
    q.numberTypes && inArray(numbers.numberType, q.numberTypes),
    // A prefix as a range of numbers_phone_number_idx: after the prefix come digits only, and ':' follows '9'.
    q.phonePrefix === undefined
      ? undefined
      : and(gte(numbers.phoneNumber, q.phonePrefix), lt(numbers.phoneNumber, `${q.phonePrefix}:`)),
  );
}

/** The total: from number_counts unless the search filters, else counted over the matching numbers. */
function totalQuery(db: Database, q: OperatorNumberQuery) {
  if (q.phonePrefix !== undefined) return db.select({ total: count() }).from(numbers).where(listConditions(q));
  return countedNumbersTotal(db, q.customerSlug === undefined ? undefined : accountOf(q.customerSlug), q);
}

/** A page of every account's numbers, newest first, and how many match. */
export async function listNumbersOfAllAccounts(
  db: Database,
  q: OperatorNumberQuery,
  window: PageWindow,
): Promise<{ rows: NumberOfAccount[]; total: number }> {
  const { rows, totals } = await batchByName(db, {
    rows: numbersWithKyc(db, { customerSlug: accountSlug() })
      .where(listConditions(q))
      .orderBy(desc(numbers.createdAt), desc(numbers.id))
      .limit(window.limit)
      .offset(window.offset),
    totals: totalQuery(db, q),
  });
  return { rows, total: totals[0]!.total };
}

/**
 * Any account's number with its account's slug, its order and its verification (its own, or its profile's); undefined
 * when there is no such number.
 */
export async function findNumberForOperator(db: Database, numberId: string) {
  const { found, order } = await batchByName(db, {
    found: numbersWithKyc(db, { customerSlug: accountSlug() }).where(eq(numbers.id, numberId)),
    order: db
      .select()
      .from(orders)
      .where(eq(orders.id, sql`(SELECT ${numbers.orderId} FROM ${numbers} WHERE ${numbers.id} = ${numberId})`)),
  });
  const [row] = found;
  if (!row || !order[0]) return undefined;
  const verification = await findVerificationWithDocuments(db, row.number.customerId, numberId);
  return { row, order: order[0], verification };
}
