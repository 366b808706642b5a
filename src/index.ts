// The Worker entry: HTTP, the webhook delivery queue consumer, and the scheduled jobs.
import { createApp } from "./app.ts";
import { createDatabase } from "./db/client.ts";
import { purgeExpiredIdempotencyKeys } from "./db/idempotency.ts";
import { openRequestSession } from "./db/session.ts";
import type { Bindings } from "./env.ts";
import { purgeExpiredAnswers } from "./http/idempotency.ts";
import { sweepOrphanObjects } from "./kyc/documents.ts";
import { sendExpiryNotices } from "./kyc/expiry.ts";
import { expireReservations } from "./reservations/expiry.ts";
import { returnNumbersToStock } from "./stock/returns.ts";
import { purgeExpiredCredentials } from "./users/sessions.ts";
import { consumeDeliveries } from "./webhooks/delivery.ts";
import { purgeExpiredEvents, requeueOverdueDeliveries } from "./webhooks/maintenance.ts";

const app = createApp();

/** Runs one job and logs what it did (its counts) or how it failed, as the request log does for requests. */
async function logged(job: string, run: () => Promise<Record<string, number>>): Promise<void> {
  try {
    console.log(JSON.stringify({ level: "info", job, ...(await run()) }));
  } catch (error) {
    console.log(JSON.stringify({ level: "error", job, error: String(error) }));
  }
}

export default {
  fetch: app.fetch,
  async queue(batch, env) {
    await consumeDeliveries(batch, env);
  },
  async scheduled(controller, env, ctx) {
    const db = createDatabase(env.DB);
    const now = controller.scheduledTime;
    ctx.waitUntil(
      Promise.all([
        logged("sweep-orphan-documents", async () => ({ deleted: await sweepOrphanObjects(db, env.DOCUMENTS, now) })),
        logged("purge-idempotency-keys", async () => ({
          deleted: await purgeExpiredIdempotencyKeys(db, now),
          answersDeleted: await purgeExpiredAnswers(env.DOCUMENTS, now),
        })),
        logged("requeue-overdue-deliveries", async () => ({
          requeued: await requeueOverdueDeliveries(db, env.WEBHOOK_DELIVERIES, now),
        })),
        logged("purge-expired-events", () => purgeExpiredEvents(db, now)),
        logged("purge-expired-credentials", () => purgeExpiredCredentials(db, now)),
        logged("kyc-expiry-notices", () => sendExpiryNotices(db, env.WEBHOOK_DELIVERIES, now)),
        logged("expire-reservations", () => expireReservations(db, env.WEBHOOK_DELIVERIES, now)),
        // A session of its own, so its log line has the job's SQL time (per batch too, for the benchmark).
        logged("return-numbers-to-stock", async () => ({
          ...(await returnNumbersToStock(openRequestSession(env.DB, "POST"), now)),
        })),
      ]),
    );
  },
} satisfies ExportedHandler<Bindings, string>;
