// Per-request setup: request id, D1 session, one JSON log line per request, and the use cases' Work.
import type { Context, MiddlewareHandler } from "hono";
import type { Actor } from "../db/audit.ts";
import { BOOKMARK_PATTERN, openRequestSession } from "../db/session.ts";
import { type AppEnv, deploymentOf, type Work } from "../env.ts";
import { describeError } from "../lib/describe-error.ts";
import { validationError } from "../lib/problem.ts";
import { ClientClosed, isUnexpected } from "./problem.ts";

export const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const BOOKMARK_HEADER = "x-d1-bookmark";
const INVITATION_TOKEN = /^(\/portal\/invitations\/)[^/]+/;

/**
 * For the API's paths, before any D1 call: a client's bookmark from an earlier answer starts the session (a read then
 * sees the client's own writes, whichever replica answers), and every answer that used D1 says the latest bookmark.
 * Pages and public answers carry none: a bookmark moves with every write, so it would tell a sign-in page's visitor
 * which e-mails exist.
 */
export const d1Bookmarks: MiddlewareHandler<AppEnv> = async (c, next) => {
  const bookmark = c.req.header(BOOKMARK_HEADER);
  if (bookmark !== undefined && !BOOKMARK_PATTERN.test(bookmark)) {
    throw validationError([
      { location: "header", pointer: BOOKMARK_HEADER, message: "must be a bookmark from an earlier response" },
    ]);
  }
  if (bookmark !== undefined) c.var.session.startFrom(bookmark);
  await next();
  const latest = c.var.session.bookmark();
  if (latest !== null) c.res.headers.set(BOOKMARK_HEADER, latest);
};

export const requestContext: MiddlewareHandler<AppEnv> = async (c, next) => {
  const started = Date.now();
  c.set("now", started);
  const incoming = c.req.header("X-Request-Id");
  const requestId = incoming !== undefined && CLIENT_REQUEST_ID.test(incoming) ? incoming : crypto.randomUUID();
  c.set("requestId", requestId);
  c.set("log", { customerId: null });
  const session = openRequestSession(c.env.DB, c.req.method);
  c.set("session", session);
  c.set("db", session.db);

  await next();

  // A replayed answer (Idempotency-Key) keeps the id of the request that produced it, which its body names too.
  const answeredBy = c.res.headers.get("X-Request-Id") ?? requestId;
  c.res.headers.set("X-Request-Id", answeredBy);
  // Set when a handler threw; the error handler has answered it already, and only an unexpected one is logged as such.
  const failure = c.error && isUnexpected(c.error) ? describeError(c.error) : undefined;
  const line = {
    level: failure ? "error" : "info",
    ...(c.error instanceof ClientClosed ? { event: "client_closed" } : {}),
    method: c.req.method,
    // An invitation's token is a credential (whoever opens the link sets the password): never in a log.
    path: c.req.path.replace(INVITATION_TOKEN, "$1<token>"),
    status: c.res.status,
    duration_ms: Date.now() - started,
    request_id: requestId,
    ...(answeredBy !== requestId ? { replay_of: answeredBy } : {}),
    customer_id: c.var.log.customerId,
    d1_calls: session.usage.calls,
    d1_rows_read: session.usage.rowsRead,
    d1_rows_written: session.usage.rowsWritten,
    d1_ms: session.usage.durationMs,
    ...(failure ? { error: failure } : {}),
  };
  console.log(JSON.stringify(line));
};

/**
 * What the request's use cases work with: its D1 session and outbox, the document store, now, and who acts (set by
 * the audience's guard: only an authenticated request runs a use case).
 */
export function workOf(c: Context): Work {
  // Every audience's context has these (requestContext and the outbox middleware set them first): its Env type
  // extends AppEnv.
  const { db, outbox, requestId } = c.var as unknown as AppEnv["Variables"];
  const { actor } = c.var as { actor?: Actor };
  if (!actor) throw new Error("a use case runs only for a request whose guard has named who acts");
  const env = c.env as AppEnv["Bindings"];
  return { db, outbox, documents: env.DOCUMENTS, now: c.var.now, actor, requestId, deployment: deploymentOf(env) };
}
