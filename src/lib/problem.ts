// The service's refusal: an RFC 9457 problem with a code from a closed set, a message and the fields concerned. The API
// answers it as problem+json and pages show the same message beside the same fields; only each code's status is HTTP.

/** Every error code the API can answer with, its status and its title. Clients may rely on `code`. */
export const PROBLEMS = {
  validation_error: { status: 400, title: "Validation failed" },
  malformed_json: { status: 400, title: "Malformed JSON" },
  not_orderable: { status: 400, title: "Not orderable" },
  resolution_too_low: { status: 400, title: "Resolution too low" },
  requirements_not_met: { status: 400, title: "Requirements not met" },
  unauthorized: { status: 401, title: "Unauthorized" },
  forbidden: { status: 403, title: "Forbidden" },
  order_not_pending: { status: 403, title: "Order not pending" },
  not_found: { status: 404, title: "Not found" },
  method_not_allowed: { status: 405, title: "Method not allowed" },
  kyc_exists: { status: 409, title: "Verification already exists" },
  kyc_not_submitted: { status: 409, title: "Verification not submitted" },
  verification_locked: { status: 409, title: "Verification locked" },
  verification_completed: { status: 409, title: "Verification completed" },
  kyc_managed_by_profile: { status: 409, title: "Verification managed by a profile" },
  number_released: { status: 409, title: "Number released" },
  number_quarantined: { status: 409, title: "Number quarantined" },
  numbers_unavailable: { status: 409, title: "Numbers unavailable" },
  reservation_not_active: { status: 409, title: "Reservation not active" },
  conflict: { status: 409, title: "Conflict" },
  idempotency_key_in_use: { status: 409, title: "Idempotency key in use" },
  insufficient_stock: { status: 409, title: "Insufficient stock" },
  payload_too_large: { status: 413, title: "Payload too large" },
  unsupported_media_type: { status: 415, title: "Unsupported media type" },
  idempotency_key_reused: { status: 422, title: "Idempotency key reused" },
  rate_limited: { status: 429, title: "Too many requests" },
  internal_error: { status: 500, title: "Internal server error" },
  service_unavailable: { status: 503, title: "Service unavailable" },
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

/** A refusal: thrown by what cannot go on, returned by a use case (Result), rendered by a route or a page. */
export class Problem<C extends ProblemCode = ProblemCode> extends Error {
  readonly code: C;
  readonly errors: FieldError[] | undefined;
  readonly headers: Record<string, string>;

  constructor(code: C, detail: string, options: { errors?: FieldError[]; headers?: Record<string, string> } = {}) {
    super(detail);
    this.name = "Problem";
    this.code = code;
    this.errors = options.errors;
    this.headers = options.headers ?? {};
  }

  get status(): ProblemStatus {
    return PROBLEMS[this.code].status;
  }
}

export function notFound(what: string): Problem<"not_found"> {
  return new Problem("not_found", `${what} not found`);
}

export function unauthorized(): Problem<"unauthorized"> {
  return new Problem("unauthorized", "A valid credential is required", {
    headers: { "WWW-Authenticate": 'Bearer realm="virtual-numbers"' },
  });
}

export function validationError(errors: FieldError[]): Problem<"validation_error"> {
  const [first] = errors;
  const name = first ? fieldName(first) : "request";
  const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : "";
  return new Problem("validation_error", `${name} ${first?.message ?? "is invalid"}${more}`, { errors });
}

function fieldName(error: FieldError): string {
  if (error.location !== "body") return error.pointer;
  return error.pointer === "" ? "body" : error.pointer.slice(1).replaceAll("/", ".");
}

/**
 * The codes an action can refuse with, declared beside it: its Result takes the list, so the compiler refuses a
 * problem of another code, and its route's description lists exactly these (src/http/openapi.ts).
 */
export function refusals<const C extends readonly ProblemCode[]>(...codes: C): C {
  return codes;
}

/**
 * A use case's outcome: its value, or the problem that refuses it, with a code among `Codes` (its declared refusals).
 */
export type Result<T, Codes extends readonly ProblemCode[] = readonly ProblemCode[]> =
  | { ok: true; value: T }
  | { ok: false; problem: Problem<Codes[number]> };

export function done<T>(value: T): { ok: true; value: T } {
  return { ok: true, value };
}

export function refused<C extends ProblemCode>(problem: Problem<C>): { ok: false; problem: Problem<C> } {
  return { ok: false, problem };
}

/** A route's way with a result: the value, or the problem thrown, which the error handler answers as problem+json. */
export function valueOrProblem<T, Codes extends readonly ProblemCode[]>(result: Result<T, Codes>): T {
  if (!result.ok) throw result.problem;
  return result.value;
}

/** A refusal of one field, `message` read after its name ("quantity must be …"), with `detail` for the whole request. */
export function fieldProblem<C extends ProblemCode>(code: C, detail: string, pointer: string, message: string): Problem<C> {
  return new Problem(code, detail, { errors: [{ location: "body", pointer, message }] });
}
