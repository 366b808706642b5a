// RFC 9457 problem+json responses and the app's error handler.
import type { ErrorHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import type { AppEnv } from "../env.ts";
import { PROBLEMS, Problem } from "../lib/problem.ts";
import { publicOrigin } from "./public-origin.ts";

export const PROBLEM_CONTENT_TYPE = "application/problem+json";

/** Builds the problem+json response; `request_id` is the same value as the X-Request-Id header. */
export function problemResponse(
  c: Parameters<typeof publicOrigin>[0] & { var: { requestId: string } },
  error: Problem,
): Response {
  const { status, title } = PROBLEMS[error.code];
  const body = {
    type: `${publicOrigin(c)}/problems/${error.code}`,
    title,
    status,
    detail: error.message,
    code: error.code,
    request_id: c.var.requestId,
    ...(error.errors ? { errors: error.errors } : {}),
  };
  return new Response(JSON.stringify(body), {
    status,
    headers: { ...error.headers, "Content-Type": PROBLEM_CONTENT_TYPE },
  });
}

/** Hono raises HTTPException from its own validators and middleware; each one maps to a code of ours. */
function fromHttpException(error: HTTPException): Problem {
  switch (error.status) {
    case 400:
      return new Problem("malformed_json", "The request body is not valid JSON");
    case 413:
      return new Problem("payload_too_large", "The request body is too large");
    case 415:
      return new Problem("unsupported_media_type", "Content-Type must be application/json");
    default:
      return new Problem("internal_error", "An unexpected error occurred");
  }
}

/** The client went away while its body was being read: nobody is left to answer, and nothing went wrong here. */
export class ClientClosed extends Error {
  override name = "ClientClosed";
}

/** What the request log records for a request whose client went away (nginx's "client closed request"). */
export const CLIENT_CLOSED_STATUS = 499;

/** Whether an error is one no client caused: a bug or a failing dependency, answered as a bare 500 and logged. */
export function isUnexpected(error: Error): boolean {
  return (
    !(error instanceof Problem || error instanceof ClientClosed) && !(error instanceof HTTPException && error.status !== 500)
  );
}

/** The app's error handler: known errors become their problem; anything else is a bare 500 (logged with the request). */
export const handleError: ErrorHandler<AppEnv> = (error, c) => {
  if (error instanceof ClientClosed) return new Response(null, { status: CLIENT_CLOSED_STATUS });
  // An answer thrown whole (an idempotent replay).
  if (error instanceof HTTPException && error.res) return error.getResponse();
  if (error instanceof Problem) return problemResponse(c, error);
  if (error instanceof HTTPException && error.status !== 500) return problemResponse(c, fromHttpException(error));
  return problemResponse(c, new Problem("internal_error", "An unexpected error occurred"));
};
