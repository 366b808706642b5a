// Queries for profiles: verifications with a name and no number, shared by many numbers.
import { type AnyColumn, and, count, eq, inArray, isNull, sql } from "drizzle-orm";
import { batchByName, writeInPhases } from "../db/batch.ts";
import type { Database } from "../db/client.ts";
import type { Outbox } from "../db/outbox.ts";
import { type PageWindow, stableOrder } from "../db/paging.ts";
import { type KycRow, type KycStatus, kycProfileNumbers, kycVerifications } from "../db/schema.ts";
import { containsText, inJsonList, insertSelection } from "../db/sql.ts";
import {
  documentsOf,
  type NewVerification,
  numberCountOf,
  type ProfileWithDocuments,
  subjectVerification,
  verificationEventIfWritten,
  verificationValues,
} from "./store.ts";

/** Starts a profile of the account: a verification with a name and no number, with its kyc_profile.submitted event. */
export async function insertProfile(
  db: Database,
  outbox: Outbox,
  customerId: string,
  name: string,
  input: NewVerification,
  now: number,
): Promise<KycRow> {
  const id = crypto.randomUUID();
  const { submitted } = await batchByName(db, {
    submitted: writeInPhases({
      write: db
        .insert(kycVerifications)
        .select(
          db
            .select(insertSelection({ id, customerId, numberId: null, name, ...verificationValues(input, now) }))
            .from(sql`(SELECT 1)`),
        )
        .returning(),
      ...verificationEventIfWritten(db, "profile", "submitted", eq(kycVerifications.id, id), now),
    }),
  });
  outbox.add(submitted.after.deliveries);
  return submitted.write[0]!;
}

/** A profile of the account with its documents and how many numbers joined it, in one round trip. */
export async function findProfile(
  db: Database,
  customerId: string,
  profileId: string,
): Promise<ProfileWithDocuments | undefined> {
  const which = subjectVerification(customerId, { kind: "profile", profileId });
  const { verifications, documents, counted } = await batchByName(db, {
    verifications: db.select().from(kycVerifications).where(which),
    documents: documentsOf(db, which),
    counted: numberCountOf(db, profileId),
  });
  const [verification] = verifications;
  return verification ? { verification, documents: documents.map((d) => d.document), numberCount: counted[0]!.count } : undefined;
}

/** The profile behind the verification id an attached number shows (`kyc_<attachment>`), if it is one. */
export async function profileOfAttachment(db: Database, kycId: string): Promise<string | undefined> {
  const row = await db
    .select({ profileId: kycProfileNumbers.profileId })
    .from(kycProfileNumbers)
    .where(eq(kycProfileNumbers.kycId, kycId))
    .get();
  return row?.profileId;
}

/** The account's profiles among `profileIds` (bare ids), with their names: a statement, for a page's batch. */
export function profileNamesOf(db: Database, customerId: string, profileIds: readonly string[]) {
  return db
    .select({ id: kycVerifications.id, name: kycVerifications.name })
    .from(kycVerifications)
    .where(
      and(
        inJsonList(kycVerifications.id, profileIds),
        eq(kycVerifications.customerId, customerId),
        isNull(kycVerifications.numberId),
      ),
    );
}

/** The names of the account's profiles among `profileIds` (bare ids), by id; another account's are left out. */
export async function findProfileNames(
  db: Database,
  customerId: string,
  profileIds: readonly string[],
): Promise<Map<string, string>> {
  if (profileIds.length === 0) return new Map();
  const rows = await profileNamesOf(db, customerId, profileIds);
  return new Map(rows.map((row) => [row.id, row.name ?? ""]));
}

export const PROFILE_SORT_KEYS = ["name", "status", "created_at"] as const;
type ProfileSortKey = (typeof PROFILE_SORT_KEYS)[number];

export interface ProfileListQuery {
  statuses?: readonly KycStatus[] | undefined;
  type?: KycRow["type"] | undefined;
  /** A substring of the name, any case. */
  search?: string | undefined;
  sortBy: ProfileSortKey;
  sortOrder: "asc" | "desc";
}

const PROFILE_SORT_COLUMNS: Record<ProfileSortKey, { key: AnyColumn; nullable: boolean }> = {
  name: { key: kycVerifications.name, nullable: false },
  status: { key: kycVerifications.status, nullable: false },
  created_at: { key: kycVerifications.submittedAt, nullable: false },
};

/** A page of the account's profiles, each with its documents and number count, and the total, in one D1 call. */
export async function listProfiles(
  db: Database,
  customerId: string,
  q: ProfileListQuery,
  window: PageWindow,
): Promise<{ rows: ProfileWithDocuments[]; total: number }> {
  const matching = and(
    eq(kycVerifications.customerId, customerId),
    isNull(kycVerifications.numberId),
    q.statuses && inArray(kycVerifications.status, q.statuses),
    q.type && eq(kycVerifications.type, q.type),
    q.search === undefined ? undefined : containsText(kycVerifications.name, q.search),
  )!;
  const onPage = sql`${kycVerifications.id} IN (SELECT ${kycVerifications.id} FROM ${kycVerifications} WHERE ${matching} ORDER BY ${sql.join(
    stableOrder(PROFILE_SORT_COLUMNS[q.sortBy], kycVerifications.id, q.sortOrder),
    sql`, `,
  )} LIMIT ${window.limit} OFFSET ${window.offset})`;
  const { page, documents, totals } = await batchByName(db, {
    page: db
      .select({
        verification: kycVerifications,
        numberCount:
          sql<number>`(SELECT count(*) FROM ${kycProfileNumbers} WHERE ${kycProfileNumbers.profileId} = ${kycVerifications.id})`
            .mapWith(Number)
            .as("number_count"),
      })
      .from(kycVerifications)
      .where(onPage)
      .orderBy(...stableOrder(PROFILE_SORT_COLUMNS[q.sortBy], kycVerifications.id, q.sortOrder)),
    documents: documentsOf(db, onPage),
    totals: db.select({ total: count() }).from(kycVerifications).where(matching),
  });
  const rows = page.map((row) => ({
    ...row,
    documents: documents.map((d) => d.document).filter((d) => d.kycId === row.verification.id),
  }));
  return { rows, total: totals[0]!.total };
}
