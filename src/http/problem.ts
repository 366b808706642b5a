// RFC 9457 problem details: the closed set of error codes, the one error class, and the one error handler.
import type { ErrorHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import type { AppEnv } from "../env.ts";
import { publicOrigin } from "./public-origin.ts";

export const PROBLEM_CONTENT_TYPE = "application/problem+json";

/** Every error code the API can answer with, its status and its title. Clients may rely on `code`. */
export const PROBLEMS = {
  validation_error: { status: 400, title: "Validation failed" },
  malformed_json: { status: 400, title: "Malformed JSON" },
  not_orderable: { status: 400, title: "Not orderable" },
  resolution_too_low: { status: 400, title: "Resolution too low" },
  unauthorized: { status: 401, title: "Unauthorized" },
  order_not_pending: { status: 403, title: "Order not pending" },
  not_found: { status: 404, title: "Not found" },
  method_not_allowed: { status: 405, title: "Method not allowed" },
  kyc_exists: { status: 409, title: "Verification already exists" },
  kyc_not_submitted: { status: 409, title: "Verification not submitted" },
  verification_locked: { status: 409, title: "Verification locked" },
  verification_completed: { status: 409, title: "Verification completed" },
  conflict: { status: 409, title: "Conflict" },
  idempotency_key_in_use: { status: 409, title: "Idempotency key in use" },
  payload_too_large: { status: 413, title: "Payload too large" },
  unsupported_media_type: { status: 415, title: "Unsupported media type" },
  idempotency_key_reused: { status: 422, title: "Idempotency key reused" },
  rate_limited: { status: 429, title: "Too many requests" },
  internal_error: { status: 500, title: "Internal server error" },
} as const;

export type ProblemCode = keyof typeof PROBLEMS;
export const PROBLEM_CODES = Object.keys(PROBLEMS) as [ProblemCode, ...ProblemCode[]];
export type ProblemStatus = (typeof PROBLEMS)[ProblemCode]["status"];

export type FieldLocation = "body" | "query" | "path" | "header";

/** One invalid field: where it was, which one (JSON Pointer for bodies, the name for query and path), and why. */
export interface FieldError {
  location: FieldLocation;
  pointer: string;
  message: string;
}

export class ApiError extends Error {
  readonly code: ProblemCode;
  readonly errors: FieldError[] | undefined;
  readonly headers: Record<string, string>;

  constructor(code: ProblemCode, detail: string, options: { errors?: FieldError[]; headers?: Record<string, string> } = {}) {
    super(detail);
    this.name = "ApiError";
    this.code = code;
    this.errors = options.errors;
    this.headers = options.headers ?? {};
  }

  get status(): ProblemStatus {
    return PROBLEMS[this.code].status;
  }
}

export function notFound(what: string): ApiError {
  return new ApiError("not_found", `${what} not found`);
}

export function unauthorized(): ApiError {
  return new ApiError("unauthorized", "A valid credential is required", {
    headers: { "WWW-Authenticate": 'Bearer realm="virtual-numbers"' },
  });
}

export function validationError(errors: FieldError[]): ApiError {
  const [first] = errors;
  const name = first ? fieldName(first) : "request";
  const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : "";
  return new ApiError("validation_error", `${name} ${first?.message ?? "is invalid"}${more}`, { errors });
}

function fieldName(error: FieldError): string {
  if (error.location !== "body") return error.pointer;
  return error.pointer === "" ? "body" : error.pointer.slice(1).replaceAll("/", ".");
}

/** Builds the problem+json response; `request_id` is the same value as the X-Request-Id header. */
export function problemResponse(
  c: Parameters<typeof publicOrigin>[0] & { var: { requestId: string } },
  error: ApiError,
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
function fromHttpException(error: HTTPException): ApiError {
  switch (error.status) {
    case 400:
      return new ApiError("malformed_json", "The request body is not valid JSON");
    case 413:
      return new ApiError("payload_too_large", "The request body is too large");
    case 415:
      return new ApiError("unsupported_media_type", "Content-Type must be application/json");
    default:
      return new ApiError("internal_error", "An unexpected error occurred");
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
    !(error instanceof ApiError || error instanceof ClientClosed) && !(error instanceof HTTPException && error.status !== 500)
  );
}

/** The one error handler: known errors become their problem; anything else is a bare 500 (the request log has it). */
export const handleError: ErrorHandler<AppEnv> = (error, c) => {
  if (error instanceof ClientClosed) return new Response(null, { status: CLIENT_CLOSED_STATUS });
  // An answer thrown whole (an idempotent replay).
  if (error instanceof HTTPException && error.res) return error.getResponse();
  if (error instanceof ApiError) return problemResponse(c, error);
  if (error instanceof HTTPException && error.status !== 500) return problemResponse(c, fromHttpException(error));
  return problemResponse(c, new ApiError("internal_error", "An unexpected error occurred"));
};
