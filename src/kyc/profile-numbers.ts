// Attaching and detaching many numbers to a profile. Numbers are classified on one read, then written in one batch
// guarded by an assertion that they are all still attachable; a concurrent change fails the assertion and the whole is
// retried from a fresh read.
import { and, eq, type SQL, sql } from "drizzle-orm";
import { type CatalogPair, pairId } from "../catalog/store.ts";
import { evaluate } from "../compliance/evaluation.ts";
import { type AuditContext, auditStatement } from "../db/audit.ts";
import { batchByName, writeInPhases } from "../db/batch.ts";
import type { Database } from "../db/client.ts";
import { type EventSpec, eventStatements, inEventChunks, type Outbox } from "../db/outbox.ts";
import { type Outcome, ok, refuse } from "../db/outcome.ts";
import { retryingRaces } from "../db/races.ts";
import {
  batchAssertions,
  catalog,
  kycProfileNumbers,
  kycVerifications,
  type NumberStatus,
  numbers,
  orders,
} from "../db/schema.ts";
import { inJsonList, insertSelection } from "../db/sql.ts";
import { withPrefix } from "../lib/ids.ts";
import { attachedNumbersData } from "../webhooks/payloads.ts";
import { isReleased, NUMBER_NOT_RELEASED } from "./lifecycle.ts";
import { documentsOf, subjectVerification } from "./store.ts";

/** At most this many numbers in one attach or detach. */
export const MAX_ATTACH = 10_000;

export const ATTACH_REFUSALS = [
  "not_found",
  "number_released",
  "has_own_verification",
  "attached_to_other_profile",
  "requirements_not_met",
] as const;
type AttachRefusalCode = (typeof ATTACH_REFUSALS)[number];

/** Which numbers: these (bare ids, repeats counted once), or every number of the account's order. */
export type NumberSelection = { numberIds: string[] } | { orderId: string };

export interface NumbersReport {
  /** The numbers this request changed. */
  changed: string[];
  /** The numbers already as asked (attached to this profile; for a detach, attached to none). */
  unchanged: string[];
  refused: { numberId: string; code: AttachRefusalCode; detail: string }[];
}

interface Candidate {
  requested: string;
  id: string | null;
  status: NumberStatus | null;
  countryCode: string | null;
  numberType: string | null;
  profileId: string | null;
  ownId: string | null;
}

/** The selected numbers as they stand, each with its attachment and own verification, in request order. */
function candidates(db: Database, customerId: string, selection: NumberSelection) {
  const columns = {
    id: numbers.id,
    status: numbers.status,
    countryCode: numbers.countryCode,
    numberType: numbers.numberType,
    profileId: kycProfileNumbers.profileId,
    ownId: sql<
      string | null
    >`(SELECT ${kycVerifications.id} FROM ${kycVerifications} WHERE ${kycVerifications.numberId} = ${numbers.id})`.as("own_id"),
  };
  if ("orderId" in selection) {
    return (
      db
        // Aliased: D1 answers rows by column name, and a second `id` would be lost.
        .select({ requested: sql<string>`${numbers.id}`.as("requested"), ...columns })
        .from(numbers)
        .leftJoin(kycProfileNumbers, eq(kycProfileNumbers.numberId, numbers.id))
        .where(and(eq(numbers.orderId, selection.orderId), eq(numbers.customerId, customerId)))
        .orderBy(numbers.phoneNumber)
    );
  }
  return db
    .select({ requested: sql<string>`requested.value`.as("requested"), ...columns })
    .from(sql`json_each(${JSON.stringify([...new Set(selection.numberIds)])}) AS requested`)
    .leftJoin(numbers, and(sql`${numbers.id} = requested.value`, eq(numbers.customerId, customerId)))
    .leftJoin(kycProfileNumbers, eq(kycProfileNumbers.numberId, numbers.id))
    .orderBy(sql`requested.key`);
}

/** Whether the selection's order is the account's (a selection of ids needs no check). */
function orderOfAccount(db: Database, customerId: string, selection: NumberSelection) {
  if (!("orderId" in selection)) return undefined;
  return db
    .select({ id: orders.id })
    .from(orders)
    .where(and(eq(orders.id, selection.orderId), eq(orders.customerId, customerId)));
}

const REFUSAL_WORDS: Record<AttachRefusalCode, string> = {
  not_found: "No number of this account has this id",
  number_released: "The number was released; restore it first",
  has_own_verification: "The number has a verification of its own; delete it (DELETE /v1/numbers/{number_id}/KYC) first",
  attached_to_other_profile: "The number is attached to another profile; detach it there first",
  requirements_not_met: "The profile does not meet the requirements of this number's country and type",
};

function refusal(numberId: string, code: AttachRefusalCode, detail = REFUSAL_WORDS[code]) {
  return { numberId, code, detail };
}

type ProfileNumbersChange = "attached" | "detached";

/**
 * The kyc_profile.numbers_attached (or _detached) events of these numbers, one per NUMBERS_PER_EVENT of them, read
 * from `source` (the profile's row here; the order's, for an allocation) where it holds.
 */
export function profileNumbersEvents(
  db: Database,
  change: ProfileNumbersChange,
  profileId: string,
  numberIds: string[],
  source: Pick<EventSpec, "customerId" | "from" | "where">,
  now: number,
) {
  return Object.fromEntries(
    inEventChunks(numberIds).map((chunk, i) => [
      `chunk${i + 1}`,
      eventStatements(
        db,
        {
          ...source,
          type: `kyc_profile.numbers_${change}`,
          data: attachedNumbersData(sql`${withPrefix("kyp", profileId)}`, chunk),
        },
        now,
      ).statements,
    ]),
  );
}

/**
 * What stands after the write of an attach or detach of `numberIds` (writeInPhases' record and after): the assertion
 * that it wrote every one of them (else a concurrent change got between the read and the write, and the batch is
 * refused), then the audit event with the profile's number count before and after, and the events.
 */
function recordedChange(
  db: Database,
  audit: AuditContext,
  change: ProfileNumbersChange,
  profileId: string,
  numberIds: string[],
  now: number,
) {
  const count = numberIds.length;
  const after = sql`(SELECT count(*) FROM ${kycProfileNumbers} WHERE ${kycProfileNumbers.profileId} = ${profileId})`;
  const thisProfile = eq(kycVerifications.id, profileId);
  return {
    record: (_: SQL, rowsWritten: SQL) =>
      db.insert(batchAssertions).select(sql`SELECT ${`${change} raced`} WHERE ${rowsWritten} <> ${count}`),
    after: {
      audit: auditStatement(
        db,
        { ...audit, now },
        {
          action: `kyc_profile.numbers_${change}`,
          target: { type: "kyc_profile", id: withPrefix("kyp", profileId) },
          customerId: kycVerifications.customerId,
          changes: { number_count: [change === "attached" ? sql`${after} - ${count}` : sql`${after} + ${count}`, after] },
        },
        { from: kycVerifications, where: thisProfile },
      ),
      events: profileNumbersEvents(
        db,
        change,
        profileId,
        numberIds,
        { customerId: kycVerifications.customerId, from: kycVerifications, where: thisProfile },
        now,
      ),
    },
  };
}

/**
 * The profile and the selected numbers as they stand, in one D1 call; for an attach also what the profile's
 * evaluation needs (its documents, the catalog). Refused when the profile, or the order selected, is not the account's.
 */
async function readSelection(
  db: Database,
  customerId: string,
  profileId: string,
  selection: NumberSelection,
  forAttach: boolean,
) {
  const profile = subjectVerification(customerId, { kind: "profile", profileId });
  const read = await batchByName(db, {
    profiles: db.select().from(kycVerifications).where(profile),
    documents: forAttach ? documentsOf(db, profile) : undefined,
    order: orderOfAccount(db, customerId, selection),
    candidates: candidates(db, customerId, selection),
    catalog: forAttach ? db.select().from(catalog) : undefined,
  });
  const [verification] = read.profiles;
  if (!verification) return refuse("not_found");
  if (read.order !== undefined && read.order.length === 0) return refuse("unknown_order");
  return ok({
    subject: { verification, documents: (read.documents ?? []).map((d) => d.document) },
    candidates: read.candidates as Candidate[],
    catalog: read.catalog ?? [],
  });
}

/**
 * Attaches numbers to the account's profile, all or nothing per number: a number of the account, not released, that has
 * no verification of its own, is attached to no other profile, and whose pair the profile meets (as it stood when read:
 * the write re-checks the numbers, not the profile's compliance, as an allocation does not either). Each attached
 * number gets a verification id of its own.
 */
export async function attachNumbers(
  db: Database,
  outbox: Outbox,
  audit: AuditContext,
  customerId: string,
  profileId: string,
  selection: NumberSelection,
  now: number,
): Promise<Outcome<NumbersReport, "not_found" | "unknown_order">> {
  return retryingRaces(async () => {
    const read = await readSelection(db, customerId, profileId, selection, true);
    if (!read.ok) return read;
    const { subject, candidates, catalog: pairs } = read.value;
    // Each pair among the numbers evaluated once; a pair no longer orderable has no requirements, so any profile meets it.
    const rows = new Map(pairs.map((row) => [pairId(row), row]));
    const meets = new Map<string, boolean>();
    const profileMeets = (pair: CatalogPair): boolean => {
      const key = pairId(pair);
      if (!meets.has(key)) {
        const row = rows.get(key);
        meets.set(key, row === undefined || evaluate(row, row.requirements ?? null, subject, now).compliant);
      }
      return meets.get(key)!;
    };
    const report: NumbersReport = { changed: [], unchanged: [], refused: [] };
    for (const c of candidates) {
      const shown = withPrefix("num", c.requested);
      if (c.id === null) report.refused.push(refusal(shown, "not_found"));
      else if (isReleased({ status: c.status! })) report.refused.push(refusal(shown, "number_released"));
      else if (c.profileId === profileId) report.unchanged.push(c.id);
      else if (c.profileId !== null) report.refused.push(refusal(shown, "attached_to_other_profile"));
      else if (c.ownId !== null) report.refused.push(refusal(shown, "has_own_verification"));
      else if (!profileMeets({ countryCode: c.countryCode!, numberType: c.numberType! })) {
        report.refused.push(
          refusal(
            shown,
            "requirements_not_met",
            `The profile does not meet the requirements of ${c.countryCode} ${c.numberType} numbers`,
          ),
        );
      } else report.changed.push(c.id);
    }
    if (report.changed.length === 0) return ok(report);

    const attachments = JSON.stringify(report.changed.map((id) => [id, crypto.randomUUID()]));
    const { written } = await batchByName(db, {
      written: writeInPhases({
        write: db.insert(kycProfileNumbers).select(
          db
            .select(
              insertSelection({
                numberId: numbers.id,
                kycId: sql`json_extract(attachment.value, '$[1]')`,
                profileId: kycVerifications.id,
                customerId: numbers.customerId,
                attachedAt: now,
              }),
            )
            .from(sql`json_each(${attachments}) AS attachment`)
            // CROSS JOIN keeps the ids the outer loop: with an inner join SQLite (no statistics, so customer_id = ? looks
            // like a few rows) walks the account's numbers and scans every id for each, which grows with their square.
            .crossJoin(numbers)
            .innerJoin(kycVerifications, subjectVerification(customerId, { kind: "profile", profileId }))
            .where(
              and(
                sql`${numbers.id} = json_extract(attachment.value, '$[0]')`,
                eq(numbers.customerId, customerId),
                NUMBER_NOT_RELEASED,
                sql`NOT EXISTS (SELECT 1 FROM ${kycProfileNumbers} WHERE ${kycProfileNumbers.numberId} = ${numbers.id})`,
                sql`NOT EXISTS (SELECT 1 FROM ${kycVerifications} own WHERE own.number_id = ${numbers.id})`,
              ),
            ),
        ),
        ...recordedChange(db, audit, "attached", profileId, report.changed, now),
      }),
    });
    outbox.add(Object.values(written.after.events).flatMap((event) => event.deliveries));
    return ok(report);
  });
}

/** Detaches numbers from the account's profile: each then has no verification, and may submit its own. */
export async function detachNumbers(
  db: Database,
  outbox: Outbox,
  audit: AuditContext,
  customerId: string,
  profileId: string,
  selection: NumberSelection,
  now: number,
): Promise<Outcome<NumbersReport, "not_found" | "unknown_order">> {
  return retryingRaces(async () => {
    const read = await readSelection(db, customerId, profileId, selection, false);
    if (!read.ok) return read;
    const report: NumbersReport = { changed: [], unchanged: [], refused: [] };
    for (const c of read.value.candidates) {
      const shown = withPrefix("num", c.requested);
      if (c.id === null) report.refused.push(refusal(shown, "not_found"));
      else if (c.profileId === profileId) report.changed.push(c.id);
      else if (c.profileId !== null) report.refused.push(refusal(shown, "attached_to_other_profile"));
      else report.unchanged.push(c.id);
    }
    if (report.changed.length === 0) return ok(report);

    const detached = inJsonList(kycProfileNumbers.numberId, report.changed);
    const { written } = await batchByName(db, {
      written: writeInPhases({
        write: db.delete(kycProfileNumbers).where(and(eq(kycProfileNumbers.profileId, profileId), detached)),
        ...recordedChange(db, audit, "detached", profileId, report.changed, now),
      }),
    });
    outbox.add(Object.values(written.after.events).flatMap((event) => event.deliveries));
    return ok(report);
  });
}
