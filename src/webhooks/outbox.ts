// Queues the deliveries a request's writes created (src/db/outbox.ts) once the request has answered.
import type { MiddlewareHandler } from "hono";
import { Outbox } from "../db/outbox.ts";
import type { AppEnv } from "../env.ts";
import { describeError } from "../lib/describe-error.ts";
import { enqueueDeliveries } from "./queue.ts";

/**
 * The request's outbox (c.var.outbox, for its writes' batches), and once the request is answered, the deliveries they
 * created put on the queue. After the answer, not before it: the deliveries exist in D1 already, and a message lost
 * here is sent by the scheduled sweep of overdue deliveries.
 */
export const outboxPerRequest: MiddlewareHandler<AppEnv> = async (c, next) => {
  const outbox = new Outbox();
  c.set("outbox", outbox);
  await next();
  if (outbox.deliveryIds.length === 0) return;
  c.executionCtx.waitUntil(
    enqueueDeliveries(c.env.WEBHOOK_DELIVERIES, outbox.deliveryIds).catch((error: unknown) => {
      console.log(
        JSON.stringify({
          // The sweep of overdue deliveries sends them: a warning, not an error.
          level: "warn",
          event: "enqueue_failed",
          request_id: c.var.requestId,
          deliveries: outbox.deliveryIds,
          error: describeError(error),
        }),
      );
    }),
  );
};
