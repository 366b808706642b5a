// Shared parts of route definitions and the OpenAPI document served at /openapi.json and written by `npm run openapi`.
import { isDeepStrictEqual } from "node:util";
import { type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Env } from "hono";
import { BOOKMARK_PATTERN } from "../db/session.ts";
import { PROBLEM_CODES, PROBLEMS, type ProblemCode, type ProblemStatus } from "../lib/problem.ts";
import { IDEMPOTENCY_KEY_HEADER, IDEMPOTENCY_KEY_PATTERN, REPLAYED_HEADER } from "./idempotency.ts";
import { PROBLEM_CONTENT_TYPE } from "./problem.ts";
import { CLIENT_REQUEST_ID } from "./request-context.ts";
import { EVERY_ANSWER_HEADERS, NO_STORE_PATTERN } from "./security-headers.ts";

export const problemSchema = z
  .object({
    type: z.string().openapi({
      example: "https://api.example.com/problems/validation_error",
    }),
    title: z.string().openapi({ example: "Validation failed" }),
    status: z.int().openapi({ example: 400 }),
    detail: z.string().openapi({ example: "quantity must be at most 10000" }),
    code: z.enum(PROBLEM_CODES),
    request_id: z.string(),
    errors: z
      .array(
        z.object({
          location: z.enum(["body", "query", "path", "header"]),
          pointer: z.string().openapi({
            description: "JSON Pointer into the body, or the parameter's name.",
          }),
          message: z.string(),
        }),
      )
      .optional(),
  })
  .openapi("Problem");

/** The codes, each once, grouped by their status, in PROBLEMS' order. */
function byStatus(codes: Iterable<ProblemCode>): Map<ProblemStatus, ProblemCode[]> {
  const wanted = new Set(codes);
  const grouped = new Map<ProblemStatus, ProblemCode[]>();
  for (const code of PROBLEM_CODES) {
    if (wanted.has(code)) grouped.set(PROBLEMS[code].status, [...(grouped.get(PROBLEMS[code].status) ?? []), code]);
  }
  return grouped;
}

/** A problem answer's codes in machine-readable form (the description lists them for readers). */
export const PROBLEM_CODES_EXTENSION = "x-problem-codes";

/** A response header as the description declares it: `required` when every such answer carries it. */
export interface HeaderDescription {
  description: string;
  required: boolean;
  schema: { type: "string"; pattern?: string; enum?: string[] };
}

/** Headers every answer of a status carries, whichever route answers it. */
const PROBLEM_HEADERS: Partial<Record<ProblemStatus, Record<string, HeaderDescription>>> = {
  401: {
    "WWW-Authenticate": {
      description: "The credential the API expects: a Bearer token (an API key, or for /admin the operator's token).",
      required: true,
      schema: { type: "string" },
    },
  },
  429: {
    "Retry-After": {
      description: "Seconds to wait before trying again.",
      required: true,
      schema: { type: "string", pattern: "^[0-9]+$" },
    },
  },
  503: {
    "Retry-After": {
      description: "Seconds until Cloudflare Access's keys are asked for again.",
      required: true,
      schema: { type: "string", pattern: "^[0-9]+$" },
    },
  },
};

function problemDescription<S>(status: ProblemStatus, codes: readonly ProblemCode[], schema: S) {
  const headers = PROBLEM_HEADERS[status];
  return {
    description: `Problem details; code: ${codes.join(", ")}.`,
    [PROBLEM_CODES_EXTENSION]: codes,
    ...(headers ? { headers } : {}),
    content: { [PROBLEM_CONTENT_TYPE]: { schema } },
  };
}

/**
 * The answers of a route's own refusals, one per status: its action's declared refusals, and any its handler answers
 * itself. What the shared middleware answers is added to every operation by what it has (addSharedRefusals).
 */
export function errorResponses(codes: readonly ProblemCode[]) {
  return Object.fromEntries(
    [...byStatus(codes)].map(([status, listed]) => [status, problemDescription(status, listed, problemSchema)]),
  );
}

type SecurityRequirement = Record<string, string[]>;
export const API_KEY_SECURITY: SecurityRequirement[] = [{ bearerApiKey: [] }, { headerApiKey: [] }];
/** The operator's: the ADMIN_TOKEN, or a staff member's Cloudflare Access token (header or cookie). */
export const OPERATOR_SECURITY: SecurityRequirement[] = [{ adminToken: [] }, { accessJwt: [] }, { accessCookie: [] }];
/** A public operation says so: it needs no credential. */
export const PUBLIC_SECURITY: SecurityRequirement[] = [];

const securitySchemes = {
  bearerApiKey: {
    type: "http",
    scheme: "bearer",
    description: "An API key (vnk_…) as a Bearer token.",
  },
  headerApiKey: {
    type: "apiKey",
    in: "header",
    name: "X-API-Key",
    description: "An API key (vnk_…).",
  },
  adminToken: {
    type: "http",
    scheme: "bearer",
    description: "The operator's ADMIN_TOKEN (admin routes only): automation, with the admin role.",
  },
  accessJwt: {
    type: "apiKey",
    in: "header",
    name: "Cf-Access-Jwt-Assertion",
    description:
      "A staff member's Cloudflare Access token, as Access adds it in front of /admin (admin routes only); the " +
      "member's role decides what they may do (x-roles).",
  },
  accessCookie: {
    type: "apiKey",
    in: "cookie",
    name: "CF_Authorization",
    description: "The same token in the cookie Access sets for a browser.",
  },
} as const;

/** A JSON request body that must be present. */
export function jsonBody<T extends z.ZodType>(schema: T, description?: string) {
  return {
    required: true,
    description,
    content: { "application/json": { schema } },
  };
}

export function jsonResponse<T extends z.ZodType>(schema: T, description: string) {
  return { description, content: { "application/json": { schema } } };
}

export const locationHeader = {
  Location: { description: "Path of the new resource.", required: true, schema: { type: "string" } },
} satisfies Record<string, HeaderDescription>;

const BOOKMARK_DESCRIPTION =
  "A D1 bookmark from an earlier response: the request reads a database at least as recent as that response's, so a " +
  "client that passes back the last bookmark it got always reads its own writes, on any replica.";

/** The parts of an OpenAPI document this file edits (the generator's own types have no index signatures). */
type EditableDocument = {
  info: { license?: unknown };
  paths?: Record<string, Record<string, unknown>>;
  components?: Record<string, Record<string, unknown>>;
};
type Reference = { $ref: string };
type Parameter = { name: string; in: string; description?: string; required?: boolean; schema?: object };
/** A Response Object, or once shared (see shareProblemAnswers) a Reference Object to one. */
type Response = {
  description?: string;
  content?: unknown;
  headers?: Record<string, unknown>;
  $ref?: string;
  [PROBLEM_CODES_EXTENSION]?: readonly ProblemCode[];
};
type Operation = {
  operationId?: string;
  summary?: string;
  description?: string;
  security?: Record<string, unknown>[];
  parameters?: (Parameter | Reference)[];
  requestBody?: { content?: Record<string, unknown> };
  responses?: Record<string, Response>;
};

/** Every operation of the document, with its method ("get", "post", …). */
function operationsOf(document: EditableDocument): [string, Operation][] {
  return Object.values(document.paths ?? {}).flatMap((item) => Object.entries(item) as [string, Operation][]);
}

/** Adds a response header to the document's components under `component`; returns a reference to it. */
function headerComponent(document: EditableDocument, component: string, header: HeaderDescription) {
  const components = document.components ?? {};
  components.headers = { ...components.headers, [component]: header };
  document.components = components;
  return { $ref: `#/components/headers/${component}` };
}

/** Adds a parameter to the document's components under `component`; returns a reference to it. */
function parameterComponent(document: EditableDocument, component: string, parameter: Parameter): Reference {
  const components = document.components ?? {};
  components.parameters = { ...components.parameters, [component]: parameter };
  document.components = components;
  return { $ref: `#/components/parameters/${component}` };
}

/** Adds an optional request header (as a parameter) to the document's components; returns a reference to it. */
function headerParameterComponent(
  document: EditableDocument,
  component: string,
  parameter: { name: string; description: string; schema: object },
) {
  return parameterComponent(document, component, { ...parameter, in: "header", required: false });
}

/**
 * A header that belongs to no one route but to every operation `applies` picks (one middleware handles it): the
 * optional request header, and the response header of the same name on every answer.
 */
function addHeaderToOperations(
  document: EditableDocument,
  component: string,
  { parameter, header }: { parameter: { name: string; description: string; schema: object }; header: HeaderDescription },
  applies: (operation: Operation) => boolean,
): void {
  const parameterRef = headerParameterComponent(document, component, parameter);
  const headerRef = headerComponent(document, component, header);
  for (const [, operation] of operationsOf(document)) {
    if (!applies(operation)) continue;
    operation.parameters = [...(operation.parameters ?? []), parameterRef];
    for (const response of Object.values(operation.responses ?? {})) {
      response.headers = { ...response.headers, [parameter.name]: headerRef };
    }
  }
}

/** X-Request-Id on every operation: a client may name its request, and every answer says its id. */
function addRequestId(document: EditableDocument): void {
  addHeaderToOperations(
    document,
    "RequestId",
    {
      parameter: {
        name: "X-Request-Id",
        description: "The client's name for this request (1 to 128 letters, digits and -_.:), used when valid.",
        schema: { type: "string", pattern: CLIENT_REQUEST_ID.source },
      },
      header: {
        description:
          "The request's id: the client's X-Request-Id when valid, else one the service minted. A problem's " +
          "request_id is the same; a replayed answer keeps the id of the request that produced it.",
        required: true,
        schema: { type: "string" },
      },
    },
    () => true,
  );
}

/** The `x-d1-bookmark` header on every authenticated operation (they all read D1). */
function addBookmarkHeader(document: EditableDocument): void {
  addHeaderToOperations(
    document,
    "D1Bookmark",
    {
      parameter: {
        name: "x-d1-bookmark",
        description: BOOKMARK_DESCRIPTION,
        schema: { type: "string", pattern: BOOKMARK_PATTERN.source },
      },
      header: {
        description:
          "The newest D1 bookmark this request saw (absent when it read nothing); send it back as x-d1-bookmark to " +
          "read your own writes.",
        required: false,
        schema: { type: "string" },
      },
    },
    (operation) => Boolean(operation.security?.length),
  );
}

const IDEMPOTENCY_DESCRIPTION =
  "Makes the request safe to retry: a retry with the same key and the same request (method, path and content) gets " +
  "the first answer again, with Idempotent-Replayed: true, instead of running twice. The same key with another " +
  "request is a 422; while the first request still runs, a 409 with Retry-After. Keys are kept 24 hours, per account " +
  "(the operator's apart). A 5xx answer releases the key.";

/**
 * The Idempotency-Key header on every POST and PATCH (one middleware serves them all, so it belongs to no one route):
 * the optional request header, the Retry-After of its 409, and the Idempotent-Replayed header on stored answers.
 */
function addIdempotencyKey(document: EditableDocument): void {
  const parameter = headerParameterComponent(document, "IdempotencyKey", {
    name: IDEMPOTENCY_KEY_HEADER,
    description: IDEMPOTENCY_DESCRIPTION,
    schema: { type: "string", pattern: IDEMPOTENCY_KEY_PATTERN.source, minLength: 1, maxLength: 255 },
  });
  const replayed = headerComponent(document, "IdempotentReplayed", {
    description: "Present (true) when this answer is the stored answer to an earlier request with the same Idempotency-Key.",
    required: false,
    schema: { type: "string", enum: ["true"] },
  });
  const retryInUse = headerComponent(document, "RetryAfterInUse", {
    description: "With idempotency_key_in_use, while the key's first request still runs: seconds to wait before retrying.",
    required: false,
    schema: { type: "string", pattern: "^[0-9]+$" },
  });
  for (const [method, operation] of operationsOf(document)) {
    if (method !== "post" && method !== "patch") continue;
    operation.parameters = [...(operation.parameters ?? []), parameter];
    const responses = operation.responses ?? {};
    const conflict = responses["409"];
    if (conflict) conflict.headers = { ...conflict.headers, "Retry-After": retryInUse };
    for (const [status, response] of Object.entries(responses)) {
      if (Number(status) >= 500 || status === "401" || status === "429") continue;
      response.headers = { ...response.headers, [REPLAYED_HEADER]: replayed };
    }
    operation.responses = responses;
  }
}

/**
 * The security headers every answer carries (src/http/security-headers.ts), and Cache-Control: no-store on every
 * authenticated one: each declared once as a component, and on every response of the operations that carry it.
 */
function addSecurityHeaders(document: EditableDocument): void {
  const everyAnswer = Object.entries(EVERY_ANSWER_HEADERS).map(([name, value]) => [
    name,
    headerComponent(document, name.replaceAll("-", ""), {
      description: `A security header every answer carries, always "${value}".`,
      required: true,
      schema: { type: "string", enum: [value] },
    }),
  ]);
  const noStore = headerComponent(document, "NoStore", {
    description:
      "Authenticated answers, errors included, carry account data and secrets: no cache may keep them (no-store; a " +
      "download says private, no-store).",
    required: true,
    schema: { type: "string", pattern: NO_STORE_PATTERN.source },
  });
  for (const [, operation] of operationsOf(document)) {
    for (const response of Object.values(operation.responses ?? {})) {
      response.headers = {
        ...response.headers,
        ...Object.fromEntries(everyAnswer),
        ...(operation.security?.length ? { "Cache-Control": noStore } : {}),
      };
    }
  }
}

/** If-None-Match on every operation that answers 304 (the downloads): the condition its 304 answers. */
function addConditionalRequests(document: EditableDocument): void {
  const ifNoneMatch = headerParameterComponent(document, "IfNoneMatch", {
    name: "If-None-Match",
    description: "An ETag of an earlier answer (or *): while what it tags is unchanged, the answer is a 304 without a body.",
    schema: { type: "string" },
  });
  for (const [, operation] of operationsOf(document)) {
    if (operation.responses?.["304"]) operation.parameters = [...(operation.parameters ?? []), ifNoneMatch];
  }
}

/**
 * A HEAD beside every GET: Hono answers it with the GET's handler, its status and headers without the body. Added after
 * the headers, so that it has every header and parameter its GET has; the two share their parameters (each a component
 * named after the GET, as `listOrders.query.page`).
 */
function addHeadOperations(document: EditableDocument): void {
  for (const item of Object.values(document.paths ?? {})) {
    const get = item.get as Operation | undefined;
    const id = get?.operationId;
    if (!get || !id) continue;
    get.parameters = get.parameters?.map((parameter) =>
      "$ref" in parameter ? parameter : parameterComponent(document, `${id}.${parameter.in}.${parameter.name}`, parameter),
    );
    const { summary, responses, ...rest } = structuredClone(get);
    item.head = {
      ...rest,
      operationId: `head${id.charAt(0).toUpperCase()}${id.slice(1)}`,
      summary: `${summary}: headers only`,
      description: `${get.description ? `${get.description} ` : ""}HEAD answers as GET does, without the body.`,
      responses: Object.fromEntries(
        Object.entries(responses ?? {}).map(([status, { content: _, ...response }]) => [status, response]),
      ),
    };
  }
}

/** Where an operation gives an answer: its responses, and the status. */
type Place = [responses: Record<string, Response>, status: string];

/**
 * Problem answers (each 4xx and 5xx) declared once, in components/responses, and referenced where they are given:
 * inlined, their headers were most of the document. They differ by status and by what the name adds: `Public` (no
 * Cache-Control, no x-d1-bookmark), `Idempotent` (Idempotent-Replayed, and a 409's Retry-After), `Head` (no body).
 * The most common answer of a name has the name; one with another list of codes, given more than once, adds its codes
 * to it (`Problem409Idempotent.verification_locked.kyc_managed_by_profile.idempotency_key_in_use`). Any other answer
 * (given once, or a route's own description or header) stays inline. Added last, when each answer has all its headers.
 */
function shareProblemAnswers(document: EditableDocument): void {
  const byName = new Map<string, { response: Response; places: Place[] }[]>();
  for (const [method, operation] of operationsOf(document)) {
    const responses = operation.responses ?? {};
    for (const [status, response] of Object.entries(responses)) {
      if (Number(status) < 400) continue;
      const headers = response.headers ?? {};
      const name = [
        `Problem${status}`,
        "Cache-Control" in headers ? "" : "Public",
        REPLAYED_HEADER in headers ? "Idempotent" : "",
        method === "head" ? "Head" : "",
      ].join("");
      const variants = byName.get(name) ?? [];
      byName.set(name, variants);
      const same = variants.find((variant) => isDeepStrictEqual(variant.response, response));
      if (same) same.places.push([responses, status]);
      else variants.push({ response, places: [[responses, status]] });
    }
  }
  const shared: Record<string, Response> = {};
  for (const [name, variants] of byName) {
    // The most common first: it has the bare name; the first of each other list of codes its own.
    const [common, ...others] = [...variants].sort((a, b) => b.places.length - a.places.length);
    for (const variant of [common!, ...others]) {
      const codes = variant.response[PROBLEM_CODES_EXTENSION] ?? [];
      const named = variant === common ? name : [name, ...codes].join(".");
      if (variant !== common && (variant.places.length < 2 || Object.hasOwn(shared, named))) continue;
      shared[named] = variant.response;
      for (const [responses, status] of variant.places) responses[status] = { $ref: `#/components/responses/${named}` };
    }
  }
  document.components = {
    ...document.components,
    responses: Object.fromEntries(Object.entries(shared).sort(([a], [b]) => a.localeCompare(b))),
  };
}

/** Adds codes to an operation's problem answers: a new answer for a new status, else the codes to the route's own. */
function addRefusals(operation: Operation, codes: readonly ProblemCode[]): void {
  const responses = operation.responses ?? {};
  for (const [status, added] of byStatus(codes)) {
    const own = responses[status];
    const listed = own?.[PROBLEM_CODES_EXTENSION] ?? [];
    if (own && added.every((code) => listed.includes(code))) continue;
    const merged = [...byStatus([...listed, ...added]).values()].flat();
    const answer = problemDescription(status, merged, { $ref: "#/components/schemas/Problem" });
    responses[status] = own ? { ...own, description: answer.description, [PROBLEM_CODES_EXTENSION]: merged } : answer;
  }
  operation.responses = responses;
}

/**
 * The refusals of the shared middleware, added to every operation by what it has (its route lists only its own): any
 * answers 500; a credential, 401, the 429 of failed ones, and a bad x-d1-bookmark or Idempotency-Key (400); the
 * operator's guard, 403 (a staff member not enabled, a role the operation does not allow, a cross-site change), and
 * with an Access token 503 while Access's keys cannot be read; an account's path, 404 for another account; a query
 * or a body, 400; a body, 413 and 415, and a JSON one malformed_json; a POST's or PATCH's Idempotency-Key, 409 and 422.
 */
function addSharedRefusals(document: EditableDocument): void {
  for (const [method, operation] of operationsOf(document)) {
    const schemes = (operation.security ?? []).flatMap((requirement) => Object.keys(requirement));
    const parameters = (operation.parameters ?? []).filter((parameter): parameter is Parameter => !("$ref" in parameter));
    const body = Object.keys(operation.requestBody?.content ?? {});
    const codes: ProblemCode[] = ["internal_error"];
    if (schemes.length > 0) codes.push("validation_error", "unauthorized", "rate_limited");
    if (schemes.includes("adminToken")) codes.push("forbidden");
    if (schemes.includes("accessJwt")) codes.push("service_unavailable");
    if (parameters.some((parameter) => parameter.in === "path" && parameter.name === "customer_slug")) codes.push("not_found");
    if (body.length > 0 || parameters.some((parameter) => parameter.in === "query")) codes.push("validation_error");
    if (body.length > 0) codes.push("payload_too_large", "unsupported_media_type");
    if (body.includes("application/json")) codes.push("malformed_json");
    if (method === "post" || method === "patch") codes.push("idempotency_key_in_use", "idempotency_key_reused");
    addRefusals(operation, codes);
  }
}

const DESCRIPTION =
  "Order virtual phone numbers in bulk and verify the identity and address (KYC) behind each number. " +
  "Customer endpoints take an API key (Authorization: Bearer vnk_… or X-API-Key); /admin takes a staff member's " +
  "Cloudflare Access token, whose role decides what they may do (each operation's x-roles), or the operator's " +
  "ADMIN_TOKEN. Errors are RFC 9457 problem details (application/problem+json) with a stable `code`. Every " +
  "authenticated response that read D1 carries x-d1-bookmark; send the last one back to read your own writes on " +
  "any replica.";

const TAGS = [
  {
    name: "Service",
    description: "Whether the service is up, and what each problem type means. No credential.",
  },
  {
    name: "Orders",
    description: "Orders of virtual numbers: place, list, read, and change them while pending.",
  },
  {
    name: "Reservations",
    description:
      "Numbers in stock held for the account before it orders them: for minutes, or through a profile's review; " +
      "extended, cancelled, or expired by a scheduled job.",
  },
  {
    name: "Numbers",
    description: "The numbers allocated to the account, each with the status of its verification.",
  },
  { name: "Users", description: "The people with access to the account." },
  {
    name: "Catalog",
    description: "The orderable (country_code, number_type) pairs and what a verification for a number of each must hold.",
  },
  {
    name: "KYC",
    description:
      "Identity and address verification of a number: the address, supporting files, the status, the evaluation " +
      "against the number's requirements, renewal.",
  },
  {
    name: "KYC profiles",
    description:
      "Verify once, use for many numbers: a profile is a verification with a name that numbers join (by id, by order, " +
      "or at order time); its review, rejection reasons, expiry and renewal are a number's.",
  },
  {
    name: "Events",
    description: "Every change of the account's orders and verifications, kept 30 days: what webhooks deliver, to reconcile.",
  },
  {
    name: "Audit",
    description: "Who changed what in the account: API keys, the team, webhook endpoints, and the operator's changes.",
  },
  {
    name: "Webhooks",
    description:
      "The account's endpoints, their secrets, test events, delivery logs and retries; deliveries are signed per " +
      "Standard Webhooks, and each event type below is what an endpoint receives.",
  },
  {
    name: "Admin",
    description:
      "The operator's API, for the staff (by their Cloudflare Access identity and role) and the ADMIN_TOKEN: the " +
      "queues, fulfilment and the stock, reviews, accounts, keys, users, the catalog, the staff and the audit log.",
  },
];

/**
 * The OpenAPI 3.1 document of an app, for a server at `origin`; without one (the committed copy), the server is the
 * one that serves the document, and the contact is the reference page beside it.
 */
export function apiDocument<E extends Env>(app: OpenAPIHono<E>, origin?: string) {
  const document = app.getOpenAPI31Document({
    openapi: "3.1.0",
    info: {
      title: "virtual-numbers API",
      version: "1.0.0",
      description: DESCRIPTION,
      contact: { name: "virtual-numbers API reference", url: `${origin ?? ""}/docs` },
    },
    servers: [{ url: origin ?? "/" }],
    tags: TAGS,
  });
  const editable = document as EditableDocument;
  // OpenAPI 3.1 fields the generator's configuration type (from 3.0) does not know.
  editable.info.license = { name: "Proprietary", identifier: "LicenseRef-Proprietary" };
  editable.components = { ...editable.components, securitySchemes };
  // Every problem answer first, so the headers every answer carries are declared on them too.
  addSharedRefusals(editable);
  addIdempotencyKey(editable);
  addRequestId(editable);
  addBookmarkHeader(editable);
  addSecurityHeaders(editable);
  addConditionalRequests(editable);
  addHeadOperations(editable);
  shareProblemAnswers(editable);
  return document;
}
