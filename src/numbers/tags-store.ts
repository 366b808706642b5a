// The customer's own details of its numbers: one number's tags, reference and protection (PATCH), and tags added to or
// removed from many numbers at once. Neither touches a released number; tag and reference changes are not audited, a
// change of protection is (LIFECYCLE.md).
import { and, eq, type SQL, sql } from "drizzle-orm";
import { type AuditContext, auditBeforeWrite } from "../db/audit.ts";
import { batchByName, writeInPhases } from "../db/batch.ts";
import type { Database } from "../db/client.ts";
import { eventIfWritten, eventStatements, inEventChunks, NUMBERS_PER_NUMBER_EVENT, type Outbox } from "../db/outbox.ts";
import { type Outcome, ok, refuse } from "../db/outcome.ts";
import { retryingRaces } from "../db/races.ts";
import { batchAssertions, customers, type NumberStatus, numbers } from "../db/schema.ts";
import { NUMBER_NOT_RELEASED } from "../kyc/lifecycle.ts";
import { numbersData } from "../webhooks/payloads.ts";
import { type NumberWithKyc, ownedNumberWithKyc } from "./store.ts";

const RELEASED: NumberStatus = "released";

/** What a PATCH sets: only the fields it names. */
export interface NumberDetails {
  tags?: string[] | undefined;
  customerReference?: string | null | undefined;
  releaseProtected?: boolean | undefined;
}

/** A boolean column as JSON (true/false), for an audit event's values. */
const jsonBoolean = (value: SQL) => sql`json(CASE WHEN ${value} THEN 'true' ELSE 'false' END)`;

/** Whether the row differs from what the PATCH sets: unchanged, it is not written, so no event. */
function differs(details: NumberDetails): SQL {
  const checks: SQL[] = [];
  if (details.tags !== undefined) checks.push(sql`json(${numbers.tags}) IS NOT json(${JSON.stringify(details.tags)})`);
  if (details.customerReference !== undefined) checks.push(sql`${numbers.customerReference} IS NOT ${details.customerReference}`);
  if (details.releaseProtected !== undefined) {
    checks.push(sql`${numbers.releaseProtected} IS NOT ${details.releaseProtected ? 1 : 0}`);
  }
  return sql`(${sql.join(checks, sql` OR `)})`;
}

/**
 * Sets the named details of the account's number, unless released, in one batch with its number.updated event (only
 * when something changed) and, when release_protected changes, its number.protection_changed audit event. Answers
 * the number as it then stands.
 */
export async function updateNumberDetails(
  db: Database,
  outbox: Outbox,
  audit: AuditContext,
  customerId: string,
  numberId: string,
  details: NumberDetails,
  now: number,
): Promise<Outcome<NumberWithKyc, "not_found" | "wrong_state">> {
  const guard = and(eq(numbers.id, numberId), eq(numbers.customerId, customerId), NUMBER_NOT_RELEASED, differs(details));
  const { written, current } = await batchByName(db, {
    written: writeInPhases({
      before: {
        audit:
          details.releaseProtected === undefined
            ? undefined
            : auditBeforeWrite(
                db,
                { ...audit, now },
                {
                  action: "number.protection_changed",
                  target: { type: "number", id: sql`'num_' || ${numbers.id}` },
                  customerId: numbers.customerId,
                  changes: {
                    release_protected: [
                      jsonBoolean(sql`${numbers.releaseProtected}`),
                      jsonBoolean(sql`${details.releaseProtected}`),
                    ],
                  },
                },
                { from: numbers, guard },
              ),
      },
      write: db
        .update(numbers)
        .set({
          tags: details.tags,
          customerReference: details.customerReference,
          releaseProtected: details.releaseProtected,
          updatedAt: now,
        })
        .where(guard),
      ...eventIfWritten(
        db,
        {
          type: "number.updated",
          customerId: numbers.customerId,
          data: numbersData([numberId]),
          from: numbers,
          where: eq(numbers.id, numberId),
        },
        now,
      ),
    }),
    // Read in the same batch, so a number not written is known to be unchanged, released, or not the account's.
    current: ownedNumberWithKyc(db, customerId, numberId),
  });
  outbox.add(written.after.deliveries);
  const [row] = current;
  if (!row) return refuse("not_found");
  if (row.number.status === RELEASED) return refuse("wrong_state", { state: RELEASED });
  return ok(row);
}

export const TAG_OUTCOMES = ["updated", "unchanged", "not_found", "number_released", "too_many_tags"] as const;
type TagOutcome = (typeof TAG_OUTCOMES)[number];

/** One number's result in a bulk change of tags, in request order. */
export interface TagResult {
  numberId: string;
  phoneNumber: string | null;
  outcome: TagOutcome;
}

/** What a bulk change makes of a number's tags: new tags, or why it leaves them. */
export type TagJudgement = { outcome: "updated"; tags: string[] } | { outcome: "unchanged" | "too_many_tags" };

interface TagCandidate {
  requested: string;
  id: string | null;
  phoneNumber: string | null;
  status: NumberStatus | null;
  /** numbers.tags as stored: the write's guard compares it as read. */
  storedTags: string | null;
}

/** The requested numbers as they stand, in request order (another account's number is none). */
function tagCandidates(db: Database, customerId: string, numberIds: readonly string[]) {
  return db
    .select({
      requested: sql<string>`requested.value`.as("requested"),
      id: numbers.id,
      phoneNumber: numbers.phoneNumber,
      status: numbers.status,
      storedTags: sql<string | null>`${numbers.tags}`.as("stored_tags"),
    })
    .from(sql`json_each(${JSON.stringify([...new Set(numberIds)])}) AS requested`)
    .leftJoin(numbers, and(sql`${numbers.id} = requested.value`, eq(numbers.customerId, customerId)))
    .orderBy(sql`requested.key`);
}

/** Each candidate's outcome, and for the ones to update: [id, new tags, stored tags] (JSON texts). */
function classify(candidates: TagCandidate[], judge: (tags: readonly string[]) => TagJudgement) {
  const updates: [id: string, tags: string, stored: string][] = [];
  const results = candidates.map(({ requested, id, phoneNumber, status, storedTags }): TagResult => {
    const result = (outcome: TagOutcome): TagResult => ({ numberId: requested, phoneNumber, outcome });
    if (id === null || storedTags === null) return result("not_found");
    if (status === RELEASED) return result("number_released");
    const judged = judge(JSON.parse(storedTags) as string[]);
    if (judged.outcome === "updated") updates.push([id, JSON.stringify(judged.tags), storedTags]);
    return result(judged.outcome);
  });
  return { results, updates };
}

/**
 * Changes the tags of many of the account's numbers as `judge` says: read, judged per number, then written in one batch whose
 * UPDATE holds only where each number's tags are still as read and it is not released; an assertion that every one
 * was written refuses the batch otherwise, and the whole is done again from a fresh read. number.updated events name
 * the numbers changed, at most NUMBERS_PER_NUMBER_EVENT each.
 */
export async function tagNumbers(
  db: Database,
  outbox: Outbox,
  customerId: string,
  numberIds: readonly string[],
  judge: (tags: readonly string[]) => TagJudgement,
  now: number,
): Promise<TagResult[]> {
  return retryingRaces(async () => {
    const candidates = (await tagCandidates(db, customerId, numberIds)) as TagCandidate[];
    const { results, updates } = classify(candidates, judge);
    if (updates.length === 0) return results;
    const changed = updates.map(([id]) => id);
    const account = eq(customers.id, customerId);
    const { written } = await batchByName(db, {
      written: writeInPhases({
        write: db
          .update(numbers)
          .set({ tags: sql`json_extract(change.value, '$[1]')`, updatedAt: now })
          .from(sql`json_each(${JSON.stringify(updates)}) AS change`)
          .where(
            and(
              sql`${numbers.id} = json_extract(change.value, '$[0]')`,
              // Unary plus: not an index for SQLite to start from, so it walks the changes and finds each number by id.
              sql`+${numbers.customerId} = ${customerId}`,
              NUMBER_NOT_RELEASED,
              sql`${numbers.tags} = json_extract(change.value, '$[2]')`,
            ),
          ),
        record: (_, rowsWritten) =>
          db.insert(batchAssertions).select(sql`SELECT ${"tags raced"} WHERE ${rowsWritten} <> ${updates.length}`),
        after: {
          events: Object.fromEntries(
            inEventChunks(changed, NUMBERS_PER_NUMBER_EVENT).map((chunk, i) => [
              `chunk${i + 1}`,
              // From the account's one row: one event per chunk.
              eventStatements(
                db,
                { type: "number.updated", customerId, data: numbersData(chunk), from: customers, where: account },
                now,
              ).statements,
            ]),
          ),
        },
      }),
    });
    outbox.add(Object.values(written.after.events).flatMap((event) => event.deliveries));
    return results;
  });
}
