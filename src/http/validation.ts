// Turns zod validation failures into one validation_error problem naming each bad field.
import type { Hook, RouteConfig } from "@hono/zod-openapi";
import { z } from "@hono/zod-openapi";
import type { Context, Env } from "hono";
import { type FieldError, type FieldLocation, Problem, validationError } from "../lib/problem.ts";

type Issue = z.core.$ZodIssue;

const LOCATIONS: Record<string, FieldLocation> = {
  json: "body",
  form: "body",
  query: "query",
  param: "path",
  header: "header",
};

const TYPE_NAMES: Record<string, string> = {
  int: "an integer",
  number: "a number",
  string: "a string",
  boolean: "a boolean",
  object: "an object",
  array: "an array",
};

/** Messages read after the field's name: "quantity must be at most 10000". */
function describe(issue: z.core.$ZodRawIssue): string | undefined {
  switch (issue.code) {
    case "invalid_type":
      if (issue.input === undefined) return "is required";
      return `must be ${TYPE_NAMES[issue.expected] ?? issue.expected}`;
    case "too_big": {
      const max = String(issue.maximum);
      if (issue.origin === "string") return `must be at most ${max} characters`;
      if (issue.origin === "array" || issue.origin === "set") return `must have at most ${max} items`;
      return issue.inclusive === false ? `must be less than ${max}` : `must be at most ${max}`;
    }
    case "too_small": {
      const min = String(issue.minimum);
      if (issue.origin === "string") return min === "1" ? "must not be empty" : `must be at least ${min} characters`;
      if (issue.origin === "array" || issue.origin === "set") return `must have at least ${min} items`;
      return issue.inclusive === false ? `must be greater than ${min}` : `must be at least ${min}`;
    }
    case "invalid_format":
      if (issue.format === "uuid") return "must be a valid UUID";
      if (issue.format === "email") return "must be an email address";
      return `must match the ${issue.format} format`;
    case "invalid_value":
      return `must be one of ${issue.values.map(String).join(", ")}`;
    case "unrecognized_keys":
      return "is not allowed";
    default:
      return undefined;
  }
}

z.config({ customError: describe });

function escapePointerToken(token: PropertyKey): string {
  return String(token).replaceAll("~", "~0").replaceAll("/", "~1");
}

function pointerFor(location: FieldLocation, path: readonly PropertyKey[]): string {
  if (location === "body") return path.map((token) => `/${escapePointerToken(token)}`).join("");
  return path.map(String).join(".");
}

/** Every issue becomes one FieldError; an unknown-keys issue becomes one per unknown key. */
export function issuesToFieldErrors(issues: readonly Issue[], location: FieldLocation): FieldError[] {
  return issues.flatMap((issue) => {
    if (issue.code === "unrecognized_keys") {
      return issue.keys.map((key) => ({
        location,
        pointer: pointerFor(location, [...issue.path, key]),
        message: issue.message,
      }));
    }
    return [
      {
        location,
        pointer: pointerFor(location, issue.path),
        message: issue.message,
      },
    ];
  });
}

/** The defaultHook of every router: a failed validation throws, and the error handler answers it. */
export function validationHook(result: Parameters<Hook<unknown, Env, string, unknown>>[0]): void {
  if (result.success) return;
  const location = LOCATIONS[result.target] ?? "body";
  throw validationError(issuesToFieldErrors(result.error.issues, location));
}

/** Whether a pair of bounds (a range filter's) is in order; a missing bound never conflicts. */
export function inOrder(low: string | number | undefined, high: string | number | undefined): boolean {
  return low === undefined || high === undefined || low <= high;
}

/**
 * The `when` of a cross-field refinement: run it whenever the fields it reads parsed cleanly, even if other
 * fields failed, so `errors` lists every invalid field at once.
 */
export function whenFieldsValid(...fields: string[]) {
  return (payload: z.core.ParsePayload): boolean =>
    !payload.issues.some((issue) => {
      const path = issue.path ?? [];
      return path.length === 0 || fields.includes(String(path[0]));
    });
}

type MediaType = NonNullable<NonNullable<NonNullable<RouteConfig["request"]>["body"]>["content"][string]>;
type ContentSchema = NonNullable<Extract<MediaType, { schema?: unknown }>["schema"]>;

/**
 * A zod schema as the API description shows a body of a route that reads its body itself: a plain JSON Schema, which
 * no validator acts on (a zod one would have a validator read the body first, or, for a route that takes several
 * media types, judge every body as JSON).
 */
export function describedOnly(schema: z.ZodType): ContentSchema {
  const { $schema: _, ...described } = z.toJSONSchema(schema, { io: "input" });
  // zod's JSON Schema type admits boolean subschemas, which the OpenAPI type does not; these schemas have none.
  return described as ContentSchema;
}

/** A JSON body read by its route (after strictJsonBody's checks) and judged by `schema`, or the problem that refuses it. */
export async function validJsonBody<S extends z.ZodType>(c: Context, schema: S): Promise<z.output<S>> {
  let body: unknown;
  try {
    body = await c.req.json();
  } catch {
    throw new Problem("malformed_json", "The request body is not valid JSON");
  }
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw validationError(issuesToFieldErrors(parsed.error.issues, "body"));
  return parsed.data;
}
