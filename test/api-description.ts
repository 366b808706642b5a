// The API as the served /openapi.json lists it, each operation joined with its route's own zod schemas (kept by
// @hono/zod-openapi in the app's registry), and the one check every answer of the property tests must pass: a status
// the route declares, with the declared headers (each value as its schema says) and content type, and a body that both
// the route's zod schema and the document's own JSON Schema take, and for a problem a code the document lists for that
// operation and status: what clients read is the document, so a zod schema that the document renders untruthfully (an
// allOf that can never hold), or a refusal its operation does not declare, fails here. @cfworker/json-schema interprets
// schemas without compiling code, which workerd forbids.
import { dereference, type Schema, validate } from "@cfworker/json-schema";
import { OpenAPIHono, type RouteConfig, type z } from "@hono/zod-openapi";
import { expect } from "vitest";
import { createApp } from "../src/app.ts";
import { PROBLEM_CODES_EXTENSION, problemSchema } from "../src/http/openapi.ts";
import { PROBLEM_CONTENT_TYPE } from "../src/http/problem.ts";
import { call, callInIsolate, withLogs } from "./helpers.ts";

/** Who may call an operation, read from its `security`. */
type Audience = "public" | "customer" | "operator";

export interface DescribedOperation {
  operationId: string;
  /** Upper case, as sent. */
  method: string;
  /** As the description writes it: /api/customers/{customer_slug}/orders. */
  path: string;
  audience: Audience;
  /** The route's own configuration: its request and response zod schemas (a HEAD's are its GET's). */
  route: RouteConfig;
  /** The request headers the operation declares as parameters (lower-cased). */
  requestHeaders: Set<string>;
  /** The headers each status's answer may carry, as the document declares them (lower-cased), and which it must. */
  headers: Record<string, Map<string, DeclaredHeader>>;
  /** The document's JSON Schema of each status's body, by media type (resolved against the whole document). */
  bodySchemas: Record<string, Record<string, Schema>>;
  /** The problem codes the document lists for each status (its x-problem-codes). */
  problemCodes: Record<string, string[]>;
  /**
   * The answers it may give: the route's own, and the problems the document adds to every operation of a kind (the
   * Idempotency-Key's 409 and 422 on each POST and PATCH), with the problem's zod schema. A HEAD's have no content.
   */
  responses: RouteConfig["responses"];
}

/** A response header as the document declares it: whether every such answer carries it, and its value's schema. */
interface DeclaredHeader {
  required: boolean;
  schema: Schema | undefined;
}

type HeaderObject = { required?: boolean; schema?: Schema };
type ParameterObject = { in?: string; name?: string };
type ResponseObject = {
  headers?: Record<string, HeaderObject | Reference>;
  content?: Record<string, { schema?: Schema }>;
  [PROBLEM_CODES_EXTENSION]?: string[];
};
type Reference = { $ref: string };
type DocumentOperation = {
  operationId: string;
  security: Record<string, string[]>[];
  parameters?: (ParameterObject | Reference)[];
  responses: Record<string, ResponseObject | Reference>;
};
type Document = {
  paths: Record<string, Record<string, DocumentOperation>>;
  components: {
    headers?: Record<string, HeaderObject>;
    parameters?: Record<string, ParameterObject>;
    responses?: Record<string, ResponseObject>;
  };
};
type Responses = Record<string, ResponseObject>;

/** The kinds of components an operation refers to by $ref (schemas aside, which the validator resolves). */
type ComponentKind = "headers" | "parameters" | "responses";

/**
 * A reference to the document's components resolved (a header's, a parameter's or a response's); an item that is no
 * reference is itself. A reference that names nothing fails.
 */
export function resolved<T>(
  document: { components: Partial<Record<ComponentKind, Record<string, unknown>>> },
  kind: ComponentKind,
  item: T | Reference,
): T {
  if (typeof item !== "object" || item === null || !("$ref" in item) || typeof item.$ref !== "string") return item as T;
  const prefix = `#/components/${kind}/`;
  const found = item.$ref.startsWith(prefix)
    ? (document.components[kind]?.[item.$ref.slice(prefix.length)] as T | undefined)
    : undefined;
  if (!found) throw new Error(`${item.$ref} names no ${kind} component`);
  return found;
}

/** An operation's responses by status, each shared one (a reference to the document's components) resolved. */
function responsesOf(document: Document, operation: DocumentOperation): Responses {
  return Object.fromEntries(
    Object.entries(operation.responses).map(([status, response]) => [status, resolved(document, "responses", response)]),
  );
}

/** Each status's response headers, each reference to the document's components resolved. */
function declaredHeaders(document: Document, responses: Responses): DescribedOperation["headers"] {
  return Object.fromEntries(
    Object.entries(responses).map(([status, response]) => [
      status,
      new Map(
        Object.entries(response.headers ?? {}).map(([name, header]) => {
          const { required, schema } = resolved(document, "headers", header);
          return [name.toLowerCase(), { required: required === true, schema }];
        }),
      ),
    ]),
  );
}

/** The request headers an operation declares (its `in: header` parameters), lower-cased. */
function declaredRequestHeaders(document: Document, operation: DocumentOperation): Set<string> {
  return new Set(
    (operation.parameters ?? [])
      .map((parameter) => resolved(document, "parameters", parameter))
      .filter((parameter) => parameter.in === "header" && parameter.name !== undefined)
      .map((parameter) => parameter.name!.toLowerCase()),
  );
}

/** Each status's body schemas by media type, as the document writes them. */
function bodySchemasOf(responses: Responses): DescribedOperation["bodySchemas"] {
  return Object.fromEntries(
    Object.entries(responses).map(([status, response]) => [
      status,
      Object.fromEntries(
        Object.entries(response.content ?? {}).flatMap(([mediaType, media]) => (media.schema ? [[mediaType, media.schema]] : [])),
      ),
    ]),
  );
}

/** The document's schemas, each reachable by its place: where a $ref in the document points. */
let schemaLookup: ReturnType<typeof dereference> | undefined;

/** Where a value breaks a schema of the document: the validator's errors, in words, or none. */
function schemaErrors(value: unknown, schema: Schema): string[] {
  const result = validate(value, schema, "2020-12", schemaLookup, false);
  return result.valid ? [] : result.errors.map((error) => `${error.instanceLocation}: ${error.error}`);
}

let described: Promise<DescribedOperation[]> | undefined;

/**
 * Every operation of the served description, with its route; a listed operation without a route fails here. Read once
 * per workerd: its files share this module, and the description does not change.
 */
export function describedOperations(): Promise<DescribedOperation[]> {
  described ??= readDescribedOperations();
  return described;
}

async function readDescribedOperations(): Promise<DescribedOperation[]> {
  const response = await call("/openapi.json");
  expect(response.status).toBe(200);
  const document: Document = await response.json();
  // One lookup of the whole document: a body's schema is judged with every $ref it makes, as a client's validator would.
  schemaLookup = dereference({ ...document, $id: "https://description.test/openapi.json" } as unknown as Schema);
  const app = createApp();
  // The app's type is the chained routes' (for the typed client); the object is the OpenAPIHono that keeps the registry.
  if (!(app instanceof OpenAPIHono)) throw new Error("createApp() is expected to build an OpenAPIHono");
  const routes = new Map<string, RouteConfig>();
  for (const definition of app.openAPIRegistry.definitions) {
    if (definition.type === "route")
      routes.set(`${definition.route.method.toUpperCase()} ${definition.route.path}`, definition.route);
  }
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => {
      const key = `${method.toUpperCase()} ${path}`;
      // A HEAD is its GET's route (Hono answers it with the GET's handler), with bodies left out.
      const head = method === "head";
      const route = routes.get(head ? `GET ${path}` : key);
      if (!route) throw new Error(`${key} is described but has no route in the app's registry`);
      const schemes = operation.security.flatMap((requirement) => Object.keys(requirement));
      const audience: Audience = schemes.length === 0 ? "public" : schemes.includes("adminToken") ? "operator" : "customer";
      const described = responsesOf(document, operation);
      // Every 4xx and 5xx is a problem (expectDeclared holds it), a HEAD's too, whose body is left out. The shared
      // middleware's refusals are the document's (src/http/openapi.ts adds them), with the problem's schema.
      const added = Object.keys(described).filter((status) => !(status in route.responses) && Number(status) >= 400);
      const problem = { description: "", content: { [PROBLEM_CONTENT_TYPE]: { schema: problemSchema } } };
      const responses: RouteConfig["responses"] = {
        ...Object.fromEntries(added.map((status) => [status, problem])),
        ...route.responses,
      };
      if (head) {
        for (const [status, response] of Object.entries(responses)) {
          responses[status] = { description: "description" in response ? response.description : "" };
        }
      }
      return {
        operationId: operation.operationId,
        method: method.toUpperCase(),
        path,
        audience,
        route,
        requestHeaders: declaredRequestHeaders(document, operation),
        headers: declaredHeaders(document, described),
        bodySchemas: bodySchemasOf(described),
        problemCodes: Object.fromEntries(
          Object.entries(described).map(([status, response]) => [status, response[PROBLEM_CODES_EXTENSION] ?? []]),
        ),
        responses,
      };
    }),
  );
}

/** The operation whose route answers this method and described path (for tests that call one operation directly). */
export function operationNamed(operations: DescribedOperation[], operationId: string): DescribedOperation {
  const found = operations.find((operation) => operation.operationId === operationId);
  if (!found) throw new Error(`no described operation ${operationId}`);
  return found;
}

export interface Answer {
  status: number;
  text: string;
  /** The parsed JSON body, or undefined for a file or an empty body. */
  body: unknown;
  headers: Headers;
}

function isZod(schema: unknown): schema is z.ZodType {
  return typeof schema === "object" && schema !== null && "safeParse" in schema;
}

/** Headers of plain HTTP that the description leaves to HTTP itself: the body's type and length. Any other is declared. */
const HTTP_HEADERS = new Set(["content-type", "content-length"]);

/**
 * Asserts the answer carries every header its status requires, each as its declared schema says, and no header the
 * document does not declare (the security headers and Cache-Control included: they are promises of the contract).
 */
function expectDeclaredHeaders(operation: DescribedOperation, status: number, headers: Headers, label: string): void {
  const declared = operation.headers[String(status)] ?? new Map<string, DeclaredHeader>();
  const required = [...declared].filter(([, header]) => header.required).map(([name]) => name);
  expect(
    required.filter((name) => !headers.has(name)),
    `required headers missing; ${label}`,
  ).toEqual([]);
  const sent = [...headers.keys()].map((name) => name.toLowerCase());
  expect(
    sent.filter((name) => !HTTP_HEADERS.has(name) && !declared.has(name)),
    `undeclared headers; ${label}`,
  ).toEqual([]);
  const wrong = [...declared].flatMap(([name, { schema }]) => {
    const value = headers.get(name);
    return value === null || schema === undefined
      ? []
      : schemaErrors(value, schema).map((error) => `${name}: ${value} (${error})`);
  });
  expect(wrong, `header values their schemas refuse; ${label}`).toEqual([]);
}

/**
 * Asserts that the route declares an answer: the status is one of its responses, its headers are the declared ones
 * (every required one present), the content type one of that response's, and a JSON body parses against the declared
 * zod schema with nothing the schema does not name (the parsed value equals the body, as zod drops undeclared keys).
 * A problem also carries its status and the request id.
 */
function parsedJson(text: string, label: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return expect.fail(`a body that is not JSON; ${label}`);
  }
}

export function expectDeclared(operation: DescribedOperation, status: number, headers: Headers, text: string): Answer {
  const label = `${operation.method} ${operation.path} answered ${status}: ${text.slice(0, 400)}`;
  const declared = operation.responses[status];
  expect(declared, `undeclared status; ${label}`).toBeDefined();
  expectDeclaredHeaders(operation, status, headers, label);
  // An answer to a conditional request needs the request's condition declared, so that clients know to send it.
  if (status === 304)
    expect([...operation.requestHeaders], `304 without If-None-Match declared; ${label}`).toContain("if-none-match");
  const content = (declared && "content" in declared ? declared.content : undefined) ?? {};
  const mediaType = (headers.get("Content-Type") ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
  if (Object.keys(content).length === 0) {
    expect(text, `a body where none is declared; ${label}`).toBe("");
    return { status, text, body: undefined, headers };
  }
  expect(Object.keys(content), `undeclared content type "${mediaType}"; ${label}`).toContain(mediaType);
  if (status >= 400) expect(mediaType, label).toBe(PROBLEM_CONTENT_TYPE);
  const media = content[mediaType];
  const schema = media && "schema" in media ? media.schema : undefined;
  if (!isZod(schema)) return { status, text, body: undefined, headers };
  // A text body (the numbers' CSV) is judged as the text it is; every other described body is JSON.
  const body: unknown = /[/+]json$/.test(mediaType) ? parsedJson(text, label) : text;
  const parsed = schema.safeParse(body);
  expect(parsed.success ? [] : parsed.error.issues, `a body the declared schema refuses; ${label}`).toEqual([]);
  expect(parsed.data, `fields the declared schema does not name; ${label}`).toEqual(body);
  const described = operation.bodySchemas[String(status)]?.[mediaType];
  expect(described, `no schema in the document; ${label}`).toBeDefined();
  expect(schemaErrors(body, described!), `a body the document's JSON Schema refuses; ${label}`).toEqual([]);
  if (status >= 400) {
    const problem = body as { status: number; request_id: string; code: string };
    expect(problem.status, label).toBe(status);
    expect(operation.problemCodes[String(status)], `a code the operation does not list for ${status}; ${label}`).toContain(
      problem.code,
    );
    expect(problem.request_id, label).toBe(headers.get("X-Request-Id"));
  }
  return { status, text, body, headers };
}

/** An answer, read, with what was sent (for failure messages) and when, by the test's clock. */
export interface Sent {
  status: number;
  headers: Headers;
  bytes: Uint8Array;
  text: string;
  /** The request, its answer, and for a 5xx what the Worker logged (its stack). */
  label: string;
  /** Just before the request: the server's clock read no earlier. */
  from: number;
  /** Just after the answer: the server's clock read no later. */
  to: number;
}

/**
 * Sends a request and reads its answer. The Worker's log lines stay off the console (printing hundreds of them slows a
 * run down); a 5xx's go into the label.
 */
export async function sendQuietly(path: string, init: RequestInit = {}): Promise<Sent> {
  const from = Date.now();
  const { result: response, lines } = await withLogs(() =>
    // Forms are handled in this isolate: the app may stop reading one part way (see callInIsolate).
    init.body instanceof FormData ? callInIsolate(path, init) : call(path, init),
  );
  const bytes = new Uint8Array(await response.arrayBuffer());
  const text = new TextDecoder().decode(bytes);
  const to = Date.now();
  const logged = response.status >= 500 ? `\nlogged: ${JSON.stringify(lines)}` : "";
  const label = `${init.method ?? "GET"} ${path} answered ${response.status}: ${text.slice(0, 500)}${logged}`;
  return { status: response.status, headers: response.headers, bytes, text, label, from, to };
}

export type Exchange = Sent & Answer;

/** Sends a request for a described operation and checks the answer is one the route declares. */
async function exchange(operation: DescribedOperation, path: string, init: RequestInit = {}): Promise<Exchange> {
  const sent = await sendQuietly(path, init);
  return { ...sent, ...expectDeclared(operation, sent.status, sent.headers, sent.text) };
}

/** A request's method and body: JSON, or a multipart form. */
export interface Call {
  method?: string;
  json?: unknown;
  form?: FormData;
}

/** A request to an operation with a bearer token (an API key or the admin token), checked as `exchange` does. */
export function exchangeWith(token: string, operation: DescribedOperation, path: string, call: Call = {}): Promise<Exchange> {
  const headers: Record<string, string> = { Authorization: `Bearer ${token}` };
  if (call.json !== undefined) headers["Content-Type"] = "application/json";
  const body = call.form ?? (call.json === undefined ? undefined : JSON.stringify(call.json));
  return exchange(operation, path, { method: call.method ?? "GET", headers, body });
}

/** Asserts a refusal: one of these statuses with its code (several when the rules do not say which one wins). */
export function expectRefusal(answer: Exchange, ...refusals: [status: number, code: string][]): void {
  const code = (answer.body as { code?: string } | undefined)?.code;
  expect(
    refusals.map(([status, c]) => `${status} ${c}`),
    answer.label,
  ).toContain(`${answer.status} ${code}`);
}

const ISO_MILLISECONDS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** Asserts a timestamp is ISO 8601 UTC with milliseconds and was taken while the request ran; returns it. */
export function expectDuring(timestamp: unknown, sent: Pick<Sent, "from" | "to" | "label">): string {
  expect(
    typeof timestamp === "string" && ISO_MILLISECONDS.test(timestamp),
    `${String(timestamp)} is no timestamp; ${sent.label}`,
  ).toBe(true);
  const at = Date.parse(String(timestamp));
  expect(at, `${String(timestamp)} outside the request; ${sent.label}`).toBeGreaterThanOrEqual(sent.from);
  expect(at, `${String(timestamp)} outside the request; ${sent.label}`).toBeLessThanOrEqual(sent.to);
  return String(timestamp);
}
