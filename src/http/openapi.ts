// Shared pieces of route definitions: the problem+json schema, error responses by status, and security schemes.
import { z } from "@hono/zod-openapi";
import { PROBLEM_CONTENT_TYPE, PROBLEMS, type ProblemCode } from "./problem.ts";

const problemCodes = Object.keys(PROBLEMS) as [ProblemCode, ...ProblemCode[]];

export const problemSchema = z
  .object({
    type: z.string().openapi({ example: "https://api.example.com/problems/validation_error" }),
    title: z.string().openapi({ example: "Validation failed" }),
    status: z.int().openapi({ example: 400 }),
    detail: z.string().openapi({ example: "quantity must be at most 10000" }),
    code: z.enum(problemCodes),
    request_id: z.string(),
    errors: z
      .array(
        z.object({
          location: z.enum(["body", "query", "path", "header"]),
          pointer: z.string().openapi({ description: "JSON Pointer into the body, or the parameter's name." }),
          message: z.string(),
        }),
      )
      .optional(),
  })
  .openapi("Problem");

const STATUS_DESCRIPTIONS: Record<number, string> = {};
for (const [code, { status }] of Object.entries(PROBLEMS)) {
  STATUS_DESCRIPTIONS[status] = [STATUS_DESCRIPTIONS[status], code].filter(Boolean).join(", ");
}

type ErrorStatus = (typeof PROBLEMS)[ProblemCode]["status"];

/** The error responses of a route: every route also carries 401, 429 and 500 where it is authenticated. */
export function errorResponses(...statuses: ErrorStatus[]) {
  return Object.fromEntries(
    [...new Set([...statuses, 500])].map((status) => [
      status,
      {
        description: `Problem details; code: ${STATUS_DESCRIPTIONS[status]}.`,
        content: { [PROBLEM_CONTENT_TYPE]: { schema: problemSchema } },
      },
    ]),
  );
}

/** A timestamp on the wire: ISO 8601 UTC with milliseconds. */
export const timestampSchema = z.string().openapi({ format: "date-time", example: "2026-11-21T09:30:00.000Z" });

type SecurityRequirement = Record<string, string[]>;
export const API_KEY_SECURITY: SecurityRequirement[] = [{ bearerApiKey: [] }, { headerApiKey: [] }];
export const ADMIN_SECURITY: SecurityRequirement[] = [{ adminToken: [] }];

export const securitySchemes = {
  bearerApiKey: { type: "http", scheme: "bearer", description: "An API key (vnk_…) as a Bearer token." },
  headerApiKey: { type: "apiKey", in: "header", name: "X-API-Key", description: "An API key (vnk_…)." },
  adminToken: { type: "http", scheme: "bearer", description: "The operator's ADMIN_TOKEN (admin routes only)." },
} as const;

/** A JSON request body that must be present. */
export function jsonBody<T extends z.ZodType>(schema: T, description?: string) {
  return { required: true, description, content: { "application/json": { schema } } };
}

export function jsonResponse<T extends z.ZodType>(schema: T, description: string) {
  return { description, content: { "application/json": { schema } } };
}

const BOOKMARK_DESCRIPTION =
  "A D1 bookmark from an earlier response: the request reads a database at least as recent as that response's, so a " +
  "client that passes back the last bookmark it got always reads its own writes, on any replica.";

/** The parts of an OpenAPI document this file edits (the generator's own types have no index signatures). */
type EditableDocument = {
  paths?: Record<string, Record<string, unknown>>;
  components?: Record<string, Record<string, unknown>>;
};
type Operation = { security?: unknown[]; parameters?: unknown[]; responses?: Record<string, { headers?: Record<string, unknown> }> };

/**
 * The `x-d1-bookmark` header on every authenticated operation (they all read D1): accepted as an optional request
 * header, and returned on every response. Added to the generated document, as it belongs to no one route.
 */
export function withBookmarkHeader<T extends object>(generated: T, pattern: RegExp): T {
  const document = generated as EditableDocument;
  const components = (document.components ??= {});
  (components.parameters ??= {}).D1Bookmark = {
    name: "x-d1-bookmark",
    in: "header",
    required: false,
    description: BOOKMARK_DESCRIPTION,
    schema: { type: "string", pattern: pattern.source },
  };
  (components.headers ??= {}).D1Bookmark = {
    description: "The newest D1 bookmark this request saw; send it back as x-d1-bookmark to read your own writes.",
    schema: { type: "string" },
  };
  for (const item of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(item) as Operation[]) {
      if (!operation.security) continue;
      (operation.parameters ??= []).push({ $ref: "#/components/parameters/D1Bookmark" });
      for (const response of Object.values(operation.responses ?? {})) {
        (response.headers ??= {})["x-d1-bookmark"] = { $ref: "#/components/headers/D1Bookmark" };
      }
    }
  }
  return generated;
}
