// The Worker entry: the HTTP app, and the scheduled sweep of orphaned document files.
import { createApp } from "./app.ts";
import { createDatabase } from "./db/client.ts";
import { sweepOrphanObjects } from "./kyc/documents.ts";

const app = createApp();

export default {
  fetch: app.fetch,
  async scheduled(controller, env, ctx) {
    ctx.waitUntil(
      sweepOrphanObjects(createDatabase(env.DB), env.DOCUMENTS, controller.scheduledTime).then((deleted) =>
        console.log(
          JSON.stringify({
            level: "info",
            job: "sweep-orphan-documents",
            deleted,
          }),
        ),
      ),
    );
  },
} satisfies ExportedHandler<Env>;
