// The Worker entry: the HTTP app, and the scheduled jobs: the sweep of orphaned document files and the purge of
// expired idempotency keys.
import { createApp } from "./app.ts";
import { createDatabase } from "./db/client.ts";
import { purgeExpiredIdempotencyKeys } from "./db/idempotency.ts";
import { sweepOrphanObjects } from "./kyc/documents.ts";

const app = createApp();

/** Runs one job and logs what it did (or how it failed), as the request log does for requests. */
async function logged(job: string, run: () => Promise<number>): Promise<void> {
  try {
    console.log(JSON.stringify({ level: "info", job, deleted: await run() }));
  } catch (error) {
    console.log(JSON.stringify({ level: "error", job, error: String(error) }));
  }
}

export default {
  fetch: app.fetch,
  async scheduled(controller, env, ctx) {
    const db = createDatabase(env.DB);
    ctx.waitUntil(
      Promise.all([
        logged("sweep-orphan-documents", () => sweepOrphanObjects(db, env.DOCUMENTS, controller.scheduledTime)),
        logged("purge-idempotency-keys", () => purgeExpiredIdempotencyKeys(db, controller.scheduledTime)),
      ]),
    );
  },
} satisfies ExportedHandler<Env>;
