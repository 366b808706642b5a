// Per-request plumbing: the request id (echoed or minted), the Drizzle client, and one JSON log line per request.
import type { MiddlewareHandler } from "hono";
import { createDatabase } from "../db/client.ts";
import type { AppEnv } from "../env.ts";

const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export const requestContext: MiddlewareHandler<AppEnv> = async (c, next) => {
  const started = Date.now();
  const incoming = c.req.header("X-Request-Id");
  const requestId = incoming !== undefined && CLIENT_REQUEST_ID.test(incoming) ? incoming : crypto.randomUUID();
  c.set("requestId", requestId);
  c.set("db", createDatabase(c.env.DB));

  await next();

  c.res.headers.set("X-Request-Id", requestId);
  const failure = c.get("failure");
  const line = {
    level: failure ? "error" : "info",
    method: c.req.method,
    path: c.req.path,
    status: c.res.status,
    duration_ms: Date.now() - started,
    request_id: requestId,
    customer_id: c.get("principal")?.customerId ?? null,
    ...(failure ? { error: failure } : {}),
  };
  console.log(JSON.stringify(line));
};
