// Scheduled expiry notices (COMPLIANCE.md, Expiry and renewal). Each notice is written in the same guarded batch as the
// move of expiry_notice, so a job that runs twice or overlaps itself never sends a notice twice.
import { and, asc, eq, gt, isNotNull, lte, ne, notInArray, type SQL, sql } from "drizzle-orm";
import { batchByName, writeInPhases } from "../db/batch.ts";
import type { Database } from "../db/client.ts";
import { eventStatements } from "../db/outbox.ts";
import { kycVerifications } from "../db/schema.ts";
import { DAY_MS } from "../lib/time.ts";
import { profileData, verificationData } from "../webhooks/payloads.ts";
import { enqueueDeliveries } from "../webhooks/queue.ts";
import { numberNotReleasedIn } from "./lifecycle.ts";
import { eventTypeOf } from "./store.ts";

/** The values of expiry_notice: none sent yet for this approval, the 30-day one, the 7-day one, the expiry. */
const NONE = 0;
const EXPIRED = -1;
/** Verifications taken per batch. */
const PER_BATCH = 50;
/** Batches per run at most; what is left waits for the next run. */
const MAX_BATCHES = 40;

interface Notice {
  /** The value expiry_notice takes. */
  notice: number;
  /** Which verifications are due it now. */
  due: (now: number) => SQL;
}

/** The notices, latest first: a verification due several (the job did not run for a while) gets the latest only. */
const NOTICES: Notice[] = [
  { notice: EXPIRED, due: (now) => and(lte(kycVerifications.expiresAt, now), ne(kycVerifications.expiryNotice, EXPIRED))! },
  {
    notice: 7,
    due: (now) =>
      and(
        gt(kycVerifications.expiresAt, now),
        lte(kycVerifications.expiresAt, now + 7 * DAY_MS),
        notInArray(kycVerifications.expiryNotice, [7, EXPIRED]),
      )!,
  },
  {
    notice: 30,
    due: (now) =>
      and(
        gt(kycVerifications.expiresAt, now + 7 * DAY_MS),
        lte(kycVerifications.expiresAt, now + 30 * DAY_MS),
        eq(kycVerifications.expiryNotice, NONE),
      )!,
  },
];

/** `{verification|profile, days_left}` of the verification in scope, days rounded up. */
function expiringData(profile: boolean, now: number): SQL {
  const days = sql`CAST((${kycVerifications.expiresAt} - ${now} + ${DAY_MS - 1}) / ${DAY_MS} AS INTEGER)`;
  const data = profile ? profileData() : verificationData();
  return sql`json_object(${profile ? "profile" : "verification"}, json(${data}), 'days_left', ${days})`;
}

/** Sends the notices due at `now`; answers how many of each it sent. */
export async function sendExpiryNotices(
  db: Database,
  queue: Queue<string>,
  now: number,
): Promise<{ expiring: number; expired: number }> {
  const sent = { expiring: 0, expired: 0 };
  for (const { notice, due } of NOTICES) {
    // A released number's verification is a record: no notices (restored, it gets those still due).
    const noticed = and(isNotNull(kycVerifications.expiresAt), numberNotReleasedIn(kycVerifications), due(now))!;
    for (let batch = 0; batch < MAX_BATCHES; batch++) {
      const candidates = await db
        .select({ id: kycVerifications.id, numberId: kycVerifications.numberId })
        .from(kycVerifications)
        .where(noticed)
        .orderBy(asc(kycVerifications.expiresAt))
        .limit(PER_BATCH);
      if (candidates.length === 0) break;
      const statements = Object.fromEntries(
        candidates.map(({ id, numberId }, i) => {
          const profile = numberId === null;
          const kind = profile ? "profile" : "number";
          const which = and(eq(kycVerifications.id, id), noticed)!;
          const event = eventStatements(
            db,
            {
              type: eventTypeOf(kind, notice === EXPIRED ? "expired" : "expiring"),
              customerId: kycVerifications.customerId,
              data: notice === EXPIRED ? (profile ? profileData() : verificationData()) : expiringData(profile, now),
              from: kycVerifications,
              where: which,
            },
            now,
          ).statements;
          const moved = db
            .update(kycVerifications)
            .set({ expiryNotice: notice })
            .where(which)
            .returning({ id: kycVerifications.id });
          // The event reads the notice as due, before the move records it sent.
          return [`verification${i}`, writeInPhases({ before: { event }, write: moved })];
        }),
      );
      const results = await batchByName(db, statements);
      const groups = Object.values(results);
      const deliveries = groups.flatMap((group) => group.before.event.deliveries.map((d) => d.id));
      if (deliveries.length > 0) await enqueueDeliveries(queue, deliveries);
      const count = groups.filter((group) => group.write.length > 0).length;
      if (notice === EXPIRED) sent.expired += count;
      else sent.expiring += count;
    }
  }
  return sent;
}
