// The operator's review queue across accounts; a released number's verification is not in it. Like the orders' queue (src/orders/queue.ts), each status reads its
// first rows from an index and the page is taken from their union, with counts from the triggers' tables.
import { and, eq, inArray, isNotNull, isNull, type SQL, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/sqlite-core";
import { batchByName } from "../db/batch.ts";
import type { Database } from "../db/client.ts";
import { countByStatus, type PageWindow, type SortDirection } from "../db/paging.ts";
import {
  customers,
  type DocumentRow,
  KYC_STATUSES,
  type KycRow,
  type KycStatus,
  kycCounts,
  kycDocuments,
  kycTotals,
  kycVerifications,
  type NumberRow,
  numbers,
} from "../db/schema.ts";
import { inJsonList } from "../db/sql.ts";
import { numberNotReleasedIn } from "./lifecycle.ts";
import { DOCUMENT_ORDER, numberCountOf } from "./store.ts";

/** The statuses the queue shows unless asked for others: the verifications waiting for staff. */
export const AWAITING_STATUSES: readonly KycStatus[] = ["pending", "under_review"];

/** What a verification verifies: a number, or a profile (which numbers join). */
export const SUBJECT_TYPES = ["number", "profile"] as const;
type SubjectType = (typeof SUBJECT_TYPES)[number];

export interface ReviewQueueQuery {
  statuses: readonly KycStatus[];
  customerSlug?: string | undefined;
  subjectType?: SubjectType | undefined;
  /** The number's country and type (which leave profiles out). */
  countryCodes?: readonly string[] | undefined;
  numberTypes?: readonly string[] | undefined;
  sortOrder: SortDirection;
}

export interface QueuedVerification {
  verification: KycRow;
  documents: DocumentRow[];
  customerSlug: string;
  /** The number verified; null for a profile. */
  number: Pick<NumberRow, "id" | "phoneNumber" | "countryCode" | "numberType"> | null;
}

const branchKyc = alias(kycVerifications, "branch_kyc");
const branchNumbers = alias(numbers, "branch_numbers");

function accountId(q: ReviewQueueQuery): SQL | undefined {
  return q.customerSlug === undefined
    ? undefined
    : sql`(SELECT ${customers.id} FROM ${customers} WHERE ${eq(customers.slug, q.customerSlug)})`;
}

/** The verifications of the subject type asked for, in `table`. */
function ofSubjectType(table: typeof kycVerifications | typeof branchKyc, q: ReviewQueueQuery): SQL | undefined {
  if (q.subjectType === undefined) return undefined;
  return q.subjectType === "number" ? isNotNull(table.numberId) : isNull(table.numberId);
}

function order(table: typeof kycVerifications | typeof branchKyc, q: ReviewQueueQuery): SQL {
  const dir = sql.raw(q.sortOrder === "asc" ? "ASC" : "DESC");
  return sql`${table.submittedAt} ${dir}, ${table.id} ${dir}`;
}

/** The page's rowids: each status's first offset + limit verifications in order, then the union's page. */
function pageRowids(q: ReviewQueueQuery, window: PageWindow): SQL {
  const account = accountId(q);
  const byPair = q.countryCodes !== undefined || q.numberTypes !== undefined;
  const conditions = and(
    numberNotReleasedIn(branchKyc),
    account === undefined ? undefined : eq(branchKyc.customerId, account),
    ofSubjectType(branchKyc, q),
    q.countryCodes && inJsonList(branchNumbers.countryCode, q.countryCodes),
    q.numberTypes && inJsonList(branchNumbers.numberType, q.numberTypes),
  );
  const from = byPair
    ? sql`${kycVerifications} ${branchKyc} JOIN ${numbers} ${branchNumbers} ON ${branchNumbers.id} = ${branchKyc.numberId}`
    : sql`${kycVerifications} ${branchKyc}`;
  return sql`(
    WITH branches AS (SELECT value AS status FROM json_each(${JSON.stringify(q.statuses)}))
    SELECT ${kycVerifications}.rowid FROM branches JOIN ${kycVerifications} ON ${kycVerifications}.rowid IN (
      SELECT ${branchKyc}.rowid FROM ${from}
      WHERE ${branchKyc.status} = branches.status AND ${conditions ?? sql`1`}
      ORDER BY ${order(branchKyc, q)} LIMIT ${window.offset + window.limit}
    )
    ORDER BY ${order(kycVerifications, q)} LIMIT ${window.limit} OFFSET ${window.offset}
  )`;
}

/**
 * Counts by status over every filter but status: the triggers' counts (which, like the queue, leave out released
 * numbers' verifications), or with a pair or subject filter, counted.
 */
function statusCountsQuery(db: Database, q: ReviewQueueQuery) {
  const byPair = q.countryCodes !== undefined || q.numberTypes !== undefined;
  if (byPair || q.subjectType !== undefined) {
    const account = accountId(q);
    const counted = db
      .select({ status: kycVerifications.status, count: sql<number>`count(*)`.mapWith(Number) })
      .from(kycVerifications);
    return (byPair ? counted.innerJoin(numbers, eq(numbers.id, kycVerifications.numberId)) : counted)
      .where(
        and(
          numberNotReleasedIn(kycVerifications),
          account === undefined ? undefined : eq(kycVerifications.customerId, account),
          ofSubjectType(kycVerifications, q),
          q.countryCodes && inJsonList(numbers.countryCode, q.countryCodes),
          q.numberTypes && inJsonList(numbers.numberType, q.numberTypes),
        ),
      )
      .groupBy(kycVerifications.status);
  }
  if (q.customerSlug !== undefined) {
    return db
      .select({ status: kycCounts.status, count: kycCounts.count })
      .from(kycCounts)
      .where(eq(kycCounts.customerId, accountId(q)!));
  }
  return db.select({ status: kycTotals.status, count: kycTotals.count }).from(kycTotals);
}

/** A page of the review queue, its total and the counts by status, in one D1 call. */
export async function listReviewQueue(
  db: Database,
  q: ReviewQueueQuery,
  window: PageWindow,
): Promise<{ rows: QueuedVerification[]; total: number; statusCounts: Record<KycStatus, number> }> {
  const onPage = sql`${kycVerifications}.rowid IN ${pageRowids(q, window)}`;
  const { page, documents, counted } = await batchByName(db, {
    page: queued(db).where(onPage).orderBy(order(kycVerifications, q)),
    documents: db
      .select()
      .from(kycDocuments)
      .where(inArray(kycDocuments.kycId, db.select({ id: kycVerifications.id }).from(kycVerifications).where(onPage)))
      .orderBy(...DOCUMENT_ORDER),
    counted: statusCountsQuery(db, q),
  });
  return { rows: withDocuments(page, documents), ...countByStatus(KYC_STATUSES, counted, q.statuses) };
}

/**
 * Verifications with their account's slug and their number (none for a profile), to be filtered. The number's columns
 * are aliased: D1 answers rows by column name, and the verification's id would otherwise be the number's.
 */
function queued(db: Database) {
  return db
    .select({
      verification: kycVerifications,
      customerSlug: customers.slug,
      number: {
        id: sql<string | null>`${numbers.id}`.as("subject_number_id"),
        phoneNumber: sql<string | null>`${numbers.phoneNumber}`.as("subject_phone_number"),
        countryCode: sql<string | null>`${numbers.countryCode}`.as("subject_country_code"),
        numberType: sql<string | null>`${numbers.numberType}`.as("subject_number_type"),
      },
    })
    .from(kycVerifications)
    .innerJoin(customers, eq(customers.id, kycVerifications.customerId))
    .leftJoin(numbers, eq(numbers.id, kycVerifications.numberId));
}

function withDocuments(
  rows: (Omit<QueuedVerification, "documents" | "number"> & {
    number: { id: string | null; phoneNumber: string | null; countryCode: string | null; numberType: string | null };
  })[],
  documents: DocumentRow[],
): QueuedVerification[] {
  return rows.map(({ number, ...row }) => ({
    ...row,
    number:
      number.id === null
        ? null
        : { id: number.id, phoneNumber: number.phoneNumber!, countryCode: number.countryCode!, numberType: number.numberType! },
    documents: documents.filter((d) => d.kycId === row.verification.id),
  }));
}

/** One verification of any account, with its documents, account and subject (and a profile's count of numbers), for staff. */
export async function findQueuedVerification(
  db: Database,
  kycId: string,
): Promise<(QueuedVerification & { numberCount: number }) | undefined> {
  const { rows, documents, counted } = await batchByName(db, {
    rows: queued(db).where(eq(kycVerifications.id, kycId)),
    documents: db
      .select()
      .from(kycDocuments)
      .where(eq(kycDocuments.kycId, kycId))
      .orderBy(...DOCUMENT_ORDER),
    counted: numberCountOf(db, kycId),
  });
  const [found] = withDocuments(rows, documents);
  return found && { ...found, numberCount: counted[0]?.count ?? 0 };
}

/**
 * The review queue at a glance, in one D1 call whatever the accounts' size: what awaits staff by status (kyc_totals)
 * and the oldest pending submission (the first entry of the status index).
 */
export async function reviewQueueGlance(db: Database): Promise<{
  statusCounts: Record<KycStatus, number>;
  oldestPendingAt: number | null;
}> {
  const { counted, oldest } = await batchByName(db, {
    counted: db
      .select({ status: kycTotals.status, count: kycTotals.count })
      .from(kycTotals)
      .where(inJsonList(kycTotals.status, AWAITING_STATUSES)),
    oldest: db
      .select({ submittedAt: kycVerifications.submittedAt })
      .from(kycVerifications)
      .where(and(eq(kycVerifications.status, "pending"), numberNotReleasedIn(kycVerifications)))
      .orderBy(kycVerifications.submittedAt, kycVerifications.id)
      .limit(1),
  });
  const { statusCounts } = countByStatus(KYC_STATUSES, counted, undefined);
  return { statusCounts, oldestPendingAt: oldest[0]?.submittedAt ?? null };
}
