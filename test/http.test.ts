// The HTTP foundation: health, request ids, problem+json for unknown routes and methods, bodies, the 500 answer.

import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { createRoute } from "@hono/zod-openapi";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createApp } from "../src/app.ts";
import { API_KEY_SECURITY, apiDocument, errorResponses } from "../src/http/openapi.ts";
import { createRouter } from "../src/http/router.ts";
import { describeError } from "../src/lib/describe-error.ts";
import { SCALAR_BUNDLE_PATH } from "../src/service/docs.ts";
import { describedOperations, expectDeclared, operationNamed, resolved, sendQuietly } from "./api-description.ts";
import { TEST_ADMIN_TOKEN } from "./constants.ts";
import {
  addressed,
  anonymous,
  bodyOf,
  call,
  callInIsolate,
  createCustomer,
  json,
  makeOrderable,
  ORIGIN,
  operator,
  problem,
  type TestCustomer,
  uniqueNumberType,
  withLogs,
} from "./helpers.ts";

/** The parts of /openapi.json these tests read, checked as the document is parsed (it is no route's typed answer). */
const contentDocument = z.record(
  z.string(),
  z.looseObject({
    schema: z.looseObject({
      $ref: z.string().optional(),
      required: z.array(z.string()).optional(),
      properties: z.record(z.string(), z.unknown()).optional(),
    }),
  }),
);
const operationDocument = z.looseObject({
  parameters: z.array(z.looseObject({ name: z.string().optional(), $ref: z.string().optional() })).optional(),
  requestBody: z.looseObject({ content: contentDocument }).optional(),
  responses: z.record(
    z.string(),
    z.looseObject({
      description: z.string().optional(),
      content: contentDocument.optional(),
      headers: z.record(z.string(), z.unknown()).optional(),
      "x-problem-codes": z.array(z.string()).optional(),
      $ref: z.string().optional(),
    }),
  ),
});
type ResponseDocument = z.infer<typeof operationDocument>["responses"][string];
const apiDocumentSchema = z.looseObject({
  openapi: z.string(),
  paths: z.record(z.string(), z.record(z.string(), operationDocument)),
  components: z.looseObject({
    parameters: z.record(z.string(), z.unknown()),
    responses: z.record(z.string(), z.unknown()),
    securitySchemes: z.record(z.string(), z.unknown()),
  }),
});
type ApiDocument = z.infer<typeof apiDocumentSchema>;

async function apiDescription(): Promise<ApiDocument> {
  const response = await call("/openapi.json");
  const text = await response.text();
  expect(response.status, text).toBe(200);
  return apiDocumentSchema.parse(JSON.parse(text));
}

/** The operation the document describes at this path and method; the test fails if there is none. */
function operation(doc: ApiDocument, path: string, method: string) {
  return doc.paths[path]?.[method] ?? expect.fail(`${method.toUpperCase()} ${path} is not described`);
}

/** A customer's list of orders, with these extra headers. */
const listOrders = (customer: TestCustomer, headers: Record<string, string> = {}) =>
  customer.account.orders.$get({ param: { customer_slug: customer.slug }, query: {} }, { headers });

describe("service endpoints", () => {
  it("answers /healthz without authentication", async () => {
    const response = await anonymous.healthz.$get();
    expect(await json(response, 200)).toEqual({ status: "ok" });
    expect(response.headers.get("X-Request-Id")).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("serves an OpenAPI 3.1 document listing every route with its error responses", async () => {
    const doc = await apiDescription();
    expect(doc.openapi).toBe("3.1.0");
    const paths = Object.keys(doc.paths);
    for (const path of [
      "/healthz",
      "/api/customers/{customer_slug}/orders",
      "/api/customers/{customer_slug}/orders/{order_id}",
      "/admin/customers",
      "/admin/customers/{slug}/api-keys",
      "/admin/api-keys/{id}",
      "/admin/catalog",
      "/admin/catalog/{country_code}/{number_type}",
      "/admin/orders/{order_id}",
      "/admin/orders/{order_id}/status",
      "/admin/orders/{order_id}/numbers",
      "/admin/customers/{slug}/users",
      "/admin/users/{user_id}",
      "/admin/kyc/{kyc_id}/review",
      "/api/customers/{customer_slug}/numbers",
      "/api/customers/{customer_slug}/users",
      "/v1/numbers/{number_id}/KYC/address",
      "/v1/numbers/{number_id}/KYC",
      "/v1/numbers/{number_id}/KYC/files",
      "/v1/kyc/documents/{document_id}/download",
      "/v1/kyc/documents/{document_id}",
    ]) {
      expect(paths).toContain(path);
    }
    const orders = "/api/customers/{customer_slug}/orders";
    const placeOrder = operation(doc, orders, "post");
    const getOrders = operation(doc, orders, "get");
    expect(Object.keys(placeOrder.responses)).toEqual(
      expect.arrayContaining(["201", "400", "401", "404", "413", "415", "429", "500"]),
    );
    // A problem answer is shared (components/responses): the same one on every operation of its kind and codes.
    const badRequest = getOrders.responses["400"] ?? expect.fail("GET …/orders declares no 400");
    expect(badRequest).toEqual({ $ref: "#/components/responses/Problem400" });
    expect(resolved<ResponseDocument>(doc, "responses", badRequest).content?.["application/problem+json"]?.schema.$ref).toBe(
      "#/components/schemas/Problem",
    );
    expect(Object.keys(getOrders.responses)).toEqual(expect.arrayContaining(["200", "400", "401", "404", "429"]));
    expect(operation(doc, "/api/customers/{customer_slug}/orders/{order_id}", "put").responses).toHaveProperty("403");
    const upload = operation(doc, "/v1/numbers/{number_id}/KYC/files", "post");
    const multipart = upload.requestBody?.content["multipart/form-data"]?.schema;
    expect(multipart?.required?.toSorted()).toEqual(["document_type", "file"]);
    expect(multipart?.properties?.file).toMatchObject({ type: "string", format: "binary" });
    expect(Object.keys(upload.responses)).toEqual(expect.arrayContaining(["201", "400", "401", "404", "409", "413", "415"]));
    expect(operation(doc, "/v1/numbers/{number_id}/KYC/address", "patch").responses["409"]).toBeDefined();
    expect(
      Object.keys(operation(doc, "/v1/kyc/documents/{document_id}/download", "get").responses["200"]?.content ?? {}),
    ).toEqual(["application/pdf", "image/jpeg", "image/png"]);
    expect(
      operation(doc, "/api/customers/{customer_slug}/users", "get").responses["200"]?.content?.["application/json"]?.schema.$ref,
    ).toBe("#/components/schemas/UserPage");
    expect(Object.keys(doc.components.securitySchemes)).toEqual([
      "bearerApiKey",
      "headerApiKey",
      "adminToken",
      "accessJwt",
      "accessCookie",
    ]);
    expect(getOrders.parameters?.map((p) => resolved<{ name?: string }>(doc, "parameters", p).name)).toEqual(
      expect.arrayContaining(["page", "limit", "search", "status", "sort_by", "sort_order", "fulfilled_to"]),
    );
  });

  it("declares each problem answer once, as a shared response, and a route's own unlike it where it is given", () => {
    const app = createRouter();
    const errors = errorResponses(["not_found"]);
    const notFound = errors[404]!;
    const ownWords = "No such thing, in this route's own words.";
    const own = { ...errors, 404: { description: ownWords, content: notFound.content } };
    for (const [path, answers] of Object.entries({ "/first": errors, "/second": errors, "/own": own })) {
      app.openAPIRegistry.registerPath(
        createRoute({
          operationId: path.slice(1),
          method: "get",
          path,
          security: API_KEY_SECURITY,
          responses: { 200: { description: "Found." }, ...answers },
        }),
      );
    }
    const { paths, components } = apiDocument(app);
    for (const path of ["/first", "/second"]) {
      expect(paths?.[path]?.get?.responses?.["404"]).toEqual({ $ref: "#/components/responses/Problem404" });
      expect(paths?.[path]?.head?.responses?.["404"]).toEqual({ $ref: "#/components/responses/Problem404Head" });
    }
    expect(components?.responses?.Problem404).toMatchObject({
      description: notFound.description,
      headers: { "Cache-Control": { $ref: "#/components/headers/NoStore" } },
      content: { "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } } },
    });
    expect(components?.responses?.Problem404Head).not.toHaveProperty("content");
    // Its 500 is the common one; its 404 stays its own.
    expect(paths?.["/own"]?.get?.responses?.["500"]).toEqual({ $ref: "#/components/responses/Problem500" });
    expect(paths?.["/own"]?.get?.responses?.["404"]).toMatchObject({ description: ownWords });
    expect(paths?.["/own"]?.head?.responses?.["404"]).toMatchObject({ description: ownWords });
  });

  it("lists for each problem answer the codes its operation can give: its action's and the shared middleware's", async () => {
    const doc = await apiDescription();
    /** Each problem status of an operation with its codes, checked against its description's words. */
    const codesOf = (path: string, method: string) =>
      Object.fromEntries(
        Object.entries(operation(doc, path, method).responses)
          .filter(([status]) => Number(status) >= 400)
          .map(([status, answer]) => {
            const { description, "x-problem-codes": codes = [] } = resolved<ResponseDocument>(doc, "responses", answer);
            expect(description, `${method} ${path} ${status}`).toBe(`Problem details; code: ${codes.join(", ")}.`);
            return [status, codes];
          }),
      );
    // placeOrder's refusals (PLACE_ORDER_REFUSALS), a JSON body's, an account's path's, a key's and idempotency's; no
    // verification's (kyc_exists) nor an upload's (resolution_too_low), as every operation listed before.
    expect(codesOf("/api/customers/{customer_slug}/orders", "post")).toEqual({
      400: ["validation_error", "malformed_json", "not_orderable", "requirements_not_met"],
      401: ["unauthorized"],
      404: ["not_found"],
      409: ["reservation_not_active", "idempotency_key_in_use"],
      413: ["payload_too_large"],
      415: ["unsupported_media_type"],
      422: ["idempotency_key_reused"],
      429: ["rate_limited"],
      500: ["internal_error"],
    });
    // The operator's guard (403 forbidden, 503 while Access's keys cannot be read) beside moveOrder's refusals.
    expect(codesOf("/admin/orders/{order_id}/status", "post")).toMatchObject({
      403: ["forbidden"],
      404: ["not_found"],
      409: ["conflict", "idempotency_key_in_use"],
      503: ["service_unavailable"],
    });
    expect(codesOf("/v1/numbers/{number_id}/KYC/files", "post")).toMatchObject({
      400: ["validation_error", "resolution_too_low"],
      409: [
        "kyc_not_submitted",
        "verification_locked",
        "kyc_managed_by_profile",
        "number_released",
        "conflict",
        "idempotency_key_in_use",
      ],
    });
    expect(codesOf("/healthz", "get")).toEqual({ 500: ["internal_error"] });
  });

  it("holds every answer's code to the codes its operation lists for the status", async () => {
    const customer = await createCustomer();
    const createOrder = operationNamed(await describedOperations(), "createOrder");
    const sent = await sendQuietly(`/api/customers/${customer.slug}/orders`, {
      method: "POST",
      headers: { Authorization: `Bearer ${customer.key}`, "Content-Type": "application/json" },
      body: JSON.stringify({ country_code: "US", number_type: uniqueNumberType(), quantity: 1 }),
    });
    const answer = expectDeclared(createOrder, sent.status, sent.headers, sent.text);
    expect([answer.status, (answer.body as { code: string }).code], sent.label).toEqual([400, "not_orderable"]);
    // The same answer with a code of the same status that placing an order cannot give.
    const undeclared = sent.text.replace('"code":"not_orderable"', '"code":"resolution_too_low"');
    expect(undeclared).not.toBe(sent.text);
    expect(() => expectDeclared(createOrder, sent.status, sent.headers, undeclared)).toThrow(/does not list for 400/);
  });

  it("serves /docs: Scalar's reference of /openapi.json, its script from this Worker, no other host named", async () => {
    const response = await anonymous.docs.$get();
    expect(response.status).toBe(200);
    expect(response.headers.get("Content-Type")).toContain("text/html");
    const html = await response.text();
    // With the answer's CSP nonce (test/security-headers.test.ts checks it).
    expect(html).toContain(`<script src="${SCALAR_BUNDLE_PATH}" nonce="`);
    expect(html).toContain('"url": "/openapi.json"');
    expect(html).toContain('"withDefaultFonts": false');
    expect(html).toContain('"telemetry": false');
    // No address with a host anywhere in the page: no CDN, no font host, no proxy; "try it" calls this origin.
    expect(html).not.toMatch(/(https?:)?\/\/[a-z0-9-]+\.[a-z0-9.-]+/i);
    const bundle = await env.ASSETS.fetch(new URL(SCALAR_BUNDLE_PATH, "http://localhost"));
    expect(bundle.status).toBe(200);
    expect(await bundle.text()).toContain("createApiReference");
  });
});

describe("request ids", () => {
  it("echoes a well-formed incoming X-Request-Id, in the header and the error body", async () => {
    const response = await call("/nowhere", { headers: { "X-Request-Id": "req.abc:123-XYZ_" } });
    expect(response.headers.get("X-Request-Id")).toBe("req.abc:123-XYZ_");
    const body = await problem(response, 404, "not_found");
    expect(body.request_id).toBe("req.abc:123-XYZ_");
  });

  it("replaces an incoming id that is too long or has other characters", async () => {
    const health = (requestId: string) => anonymous.healthz.$get(undefined, { headers: { "X-Request-Id": requestId } });
    for (const bad of ["a".repeat(129), "has space", "semi;colon", "slash/inside", "percent%"]) {
      const response = await health(bad);
      await response.text();
      const id = response.headers.get("X-Request-Id");
      expect(id).not.toBe(bad);
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
    }
    const longest = "b".repeat(128);
    const response = await health(longest);
    await response.text();
    expect(response.headers.get("X-Request-Id")).toBe(longest);
  });
});

describe("D1 sessions and bookmarks", () => {
  const BOOKMARK = /^[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{32}$/;

  it("returns the session's bookmark with every answer that read D1, and takes it back to read its own writes", async () => {
    const customer = await createCustomer();
    await makeOrderable("US", "mobile");
    const created = await customer.account.orders.$post({
      param: { customer_slug: customer.slug },
      json: { number_type: "mobile", country_code: "US", quantity: 2 },
    });
    const bookmark = created.headers.get("x-d1-bookmark");
    expect(bookmark).toMatch(BOOKMARK);
    const order = await json(created, 201);
    const read = await customer.account.orders[":order_id"].$get(
      { param: { customer_slug: customer.slug, order_id: order.order_id } },
      { headers: { "x-d1-bookmark": bookmark ?? "" } },
    );
    expect(read.headers.get("x-d1-bookmark")).toMatch(BOOKMARK);
    expect((await json(read, 200)).order_id).toBe(order.order_id);
    // Error answers carry it too; an answer that never read D1 has none to give.
    const missing = await customer.account.orders[":order_id"].$get({
      param: { customer_slug: customer.slug, order_id: crypto.randomUUID() },
    });
    expect(missing.headers.get("x-d1-bookmark")).toMatch(BOOKMARK);
    await problem(missing, 404, "not_found");
    const health = await anonymous.healthz.$get();
    expect(health.headers.get("x-d1-bookmark")).toBeNull();
    await json(health, 200);
  });

  it("starts reads anywhere and writes on the primary, unless the client's bookmark says where to start", async () => {
    const customer = await createCustomer();
    const opened: (string | undefined)[] = [];
    const DB = new Proxy(env.DB, {
      get(target, property) {
        if (property === "withSession") {
          return (start?: string) => {
            opened.push(start);
            return target.withSession(start);
          };
        }
        const value = Reflect.get(target, property);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const app = createApp();
    const send = async (method: string, headers: Record<string, string> = {}) => {
      const ctx = createExecutionContext();
      const response = await app.fetch(
        addressed(`${ORIGIN}/api/customers/${customer.slug}/orders`, {
          method,
          headers: { Authorization: `Bearer ${customer.key}`, ...headers },
        }),
        { ...env, DB },
        ctx,
      );
      await response.body?.cancel();
      await waitOnExecutionContext(ctx);
      return response;
    };
    const bookmark = (await send("GET")).headers.get("x-d1-bookmark");
    if (bookmark === null) expect.fail("the first read returned no bookmark");
    await send("POST");
    await send("GET", { "x-d1-bookmark": bookmark });
    await send("POST", { "x-d1-bookmark": bookmark });
    expect(opened).toEqual(["first-unconstrained", "first-primary", bookmark, bookmark]);
  });

  it("is declared in the OpenAPI document on every authenticated operation and its responses", async () => {
    const doc = await apiDescription();
    expect(doc.components.parameters.D1Bookmark).toMatchObject({ name: "x-d1-bookmark", in: "header", required: false });
    const list = operation(doc, "/api/customers/{customer_slug}/orders", "get");
    expect(list.parameters).toContainEqual({ $ref: "#/components/parameters/D1Bookmark" });
    expect(list.responses["200"]?.headers?.["x-d1-bookmark"]).toEqual({ $ref: "#/components/headers/D1Bookmark" });
    expect(operation(doc, "/admin/customers", "post").responses["201"]?.headers).toHaveProperty("x-d1-bookmark");
    expect(operation(doc, "/healthz", "get").parameters ?? []).not.toContainEqual({ $ref: "#/components/parameters/D1Bookmark" });
  });

  it("refuses a bookmark that is not one, naming the header", async () => {
    const customer = await createCustomer();
    for (const bookmark of ["first-primary", "not-a-bookmark", "00000000-00000000-00000000-0000000000000000000000000000000g"]) {
      const body = await problem(await listOrders(customer, { "x-d1-bookmark": bookmark }), 400, "validation_error");
      expect(body.errors).toEqual([{ location: "header", pointer: "x-d1-bookmark", message: expect.any(String) }]);
    }
  });
});

describe("unknown routes and methods", () => {
  it("answers an unknown path with 404 not_found", async () => {
    const body = await problem(await call("/no/such/thing"), 404, "not_found");
    expect(body.type).toBe(`${ORIGIN}/problems/not_found`);
    expect(body.title).toBe("Not found");
  });

  it("resolves the type URI of a problem", async () => {
    const body = await problem(await call("/no/such/thing"), 404, "not_found");
    const problemType = anonymous.problems[":code"];
    // The type URI is the address of the problem type's own route.
    expect(problemType.$url({ param: { code: body.code } }).href).toBe(body.type);
    expect(await json(await problemType.$get({ param: { code: body.code } }), 200)).toEqual({
      type: body.type,
      code: "not_found",
      status: 404,
      title: "Not found",
    });
    await problem(await problemType.$get({ param: { code: "toString" } }), 404, "not_found");
  });

  it("answers a known path with a wrong method with 405 and Allow", async () => {
    const health = await call("/healthz", { method: "POST" });
    expect(health.headers.get("Allow")).toBe("GET, HEAD");
    await problem(health, 405, "method_not_allowed");

    const customer = await createCustomer();
    const list = await customer.call(`/api/customers/${customer.slug}/orders`, { method: "DELETE" });
    expect(list.headers.get("Allow")).toBe("GET, HEAD, POST");
    await problem(list, 405, "method_not_allowed");

    const one = await customer.call(`/api/customers/${customer.slug}/orders/${crypto.randomUUID()}`, { method: "PATCH" });
    expect(one.headers.get("Allow")).toBe("GET, HEAD, PUT");
    await problem(one, 405, "method_not_allowed");
  });
});

describe("request bodies", () => {
  it("answers invalid JSON with 400 malformed_json", async () => {
    const customer = await createCustomer();
    const response = await customer.call(`/api/customers/${customer.slug}/orders`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: '{"number_type": "mobile",',
    });
    await problem(response, 400, "malformed_json");
  });

  it("answers a body that is not JSON with 415 unsupported_media_type", async () => {
    const customer = await createCustomer();
    const response = await customer.call(`/api/customers/${customer.slug}/orders`, {
      method: "POST",
      headers: { "Content-Type": "text/plain" },
      body: "number_type=mobile",
    });
    await problem(response, 415, "unsupported_media_type");
  });

  it("answers a JSON body over 64 KiB with 413 payload_too_large, streamed or declared", async () => {
    const customer = await createCustomer();
    const big = { number_type: "mobile", country_code: "US", quantity: 1, notes: "x".repeat(70_000) };
    const declared = await customer.callJson("POST", `/api/customers/${customer.slug}/orders`, big);
    await problem(declared, 413, "payload_too_large");

    const chunks = new TextEncoder().encode(JSON.stringify(big));
    // workerd accepts duplex for streamed request bodies; its RequestInit type does not name it.
    const streamed: RequestInit & { duplex: "half" } = {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: `Bearer ${customer.key}` },
      body: new ReadableStream({
        start(controller) {
          for (let i = 0; i < chunks.length; i += 8192) controller.enqueue(chunks.slice(i, i + 8192));
          controller.close();
        },
      }),
      duplex: "half",
    };
    await problem(await callInIsolate(`/api/customers/${customer.slug}/orders`, streamed), 413, "payload_too_large");
  });

  it("reads a streamed body of undeclared length whole, however many chunks it comes in", async () => {
    await makeOrderable("US", "mobile");
    const customer = await createCustomer();
    const notes = `${"ü".repeat(499)}ß`;
    const bytes = new TextEncoder().encode(JSON.stringify({ number_type: "mobile", country_code: "US", quantity: 2, notes }));
    // Chunks of 101 bytes: the two bytes of a ü or ß fall in two chunks, and 11 chunks must be joined in order.
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < bytes.length; i += 101) controller.enqueue(bytes.slice(i, i + 101));
        controller.close();
      },
    });
    const init: RequestInit & { duplex: "half" } = {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: `Bearer ${customer.key}` },
      body,
      duplex: "half",
    };
    const created = await bodyOf<{ quantity: number; notes: string }>(
      await callInIsolate(`/api/customers/${customer.slug}/orders`, init),
      201,
    );
    expect(created).toMatchObject({ quantity: 2, notes });
  });
});

describe("text and encodings", () => {
  const invisible = (found: string) =>
    `must not contain invisible format characters such as zero-width spaces, joiners or direction marks (found ${found})`;
  async function orderable(): Promise<TestCustomer> {
    await makeOrderable("US", "mobile");
    return createCustomer();
  }
  const ordersPath = (customer: TestCustomer) => `/api/customers/${customer.slug}/orders`;
  const order = { number_type: "mobile", country_code: "US", quantity: 1 };
  async function orderCount(customer: TestCustomer): Promise<number> {
    return (await json(await customer.account.orders.$get({ param: { customer_slug: customer.slug }, query: {} }), 200)).meta
      .total;
  }

  it("refuses NUL and other control characters in text fields; notes and description may hold tab, CR and LF", async () => {
    const customer = await orderable();
    for (const notes of ["a\u0000b", "bell\u0007", "esc\u001b[31m"]) {
      const refused = await problem(
        await customer.callJson("POST", ordersPath(customer), { ...order, notes }),
        400,
        "validation_error",
      );
      expect(refused.errors).toEqual([
        { location: "body", pointer: "/notes", message: "must not contain control characters other than tab, CR and LF" },
      ]);
    }
    const multiline = await customer.callJson("POST", ordersPath(customer), { ...order, notes: "line 1\r\nline 2\tend" });
    expect(multiline.status).toBe(201);
    await multiline.text();
    // A name is one line: not even a line break, and none hidden behind trimming.
    const user = await problem(
      await operator.admin.customers[":slug"].users.$post({
        param: { slug: customer.slug },
        json: { email: "ada@example.com", name: "Ada\nLovelace", role: "admin" },
      }),
      400,
      "validation_error",
    );
    expect(user.errors).toEqual([{ location: "body", pointer: "/name", message: "must not contain control characters" }]);
    await problem(
      await operator.admin.customers[":slug"].users.$post({
        param: { slug: customer.slug },
        json: { email: "ada@example.com", name: "\tAda", role: "admin" },
      }),
      400,
      "validation_error",
    );
    await problem(await customer.call(`${ordersPath(customer)}?search=a%00b`), 400, "validation_error");
    // Text that displays in another order than it is stored, in any text field; the direction marks too (issue 25).
    for (const [notes, found] of [
      ["pay \u202eten\u202c now", "U+202E"],
      ["\u2066isolated\u2069", "U+2066"],
      ["\u200fשלום\u200e 42", "U+200F"],
    ]) {
      const refused = await problem(
        await customer.callJson("POST", ordersPath(customer), { ...order, notes }),
        400,
        "validation_error",
      );
      expect(refused.errors).toEqual([{ location: "body", pointer: "/notes", message: invisible(found!) }]);
    }
    const hebrew = await customer.callJson("POST", ordersPath(customer), { ...order, notes: "שלום 42" });
    expect(hebrew.status).toBe(201);
    await hebrew.text();
    expect(await orderCount(customer)).toBe(2);
  });

  it("refuses invisible format characters (Unicode Cf) in every name and free-text field, naming the one found", async () => {
    const customer = await orderable();
    // Every kind: zero-width space, non-joiner, joiner, word joiner, byte order mark, soft hyphen, the direction marks,
    // an override, an isolate, the Arabic letter mark, a tag character (beyond the BMP).
    for (const [character, found] of [
      ["\u200b", "U+200B"],
      ["\u200c", "U+200C"],
      ["\u200d", "U+200D"],
      ["\u2060", "U+2060"],
      ["\ufeff", "U+FEFF"],
      ["\u00ad", "U+00AD"],
      ["\u200e", "U+200E"],
      ["\u202e", "U+202E"],
      ["\u2067", "U+2067"],
      ["\u061c", "U+061C"],
      ["\u{e0041}", "U+E0041"],
    ] as const) {
      const refused = await problem(
        await customer.callJson("POST", ordersPath(customer), { ...order, notes: `ad${character}min` }),
        400,
        "validation_error",
      );
      expect(refused.errors).toEqual([{ location: "body", pointer: "/notes", message: invisible(found) }]);
    }
    // "ad\u200bmin" in each name and free-text field of the API: customer, key, user, staff, profile and address,
    // webhook description, a requirement's words, a reviewer's reason and note, and a search.
    const admin = (method: string, path: string, body: unknown) =>
      call(path, {
        method,
        headers: { Authorization: `Bearer ${TEST_ADMIN_TOKEN}`, "Content-Type": "application/json" },
        body: JSON.stringify(body),
      });
    const name = "ad\u200bmin";
    const address = {
      address_line_1: "1 Main St",
      city: "Springfield",
      state_province: "CA",
      postal_code: "94105",
      country: "US",
    };
    const kycId = `kyc_${crypto.randomUUID()}`;
    const refusals: [string, Promise<Response>, "body" | "query", string][] = [
      ["customer", admin("POST", "/admin/customers", { slug: `c-${crypto.randomUUID().slice(0, 8)}`, name }), "body", "/name"],
      ["API key", admin("POST", `/admin/customers/${customer.slug}/api-keys`, { name }), "body", "/name"],
      [
        "user",
        admin("POST", `/admin/customers/${customer.slug}/users`, { email: "ada@example.com", name, role: "member" }),
        "body",
        "/name",
      ],
      ["staff", admin("PUT", "/admin/staff/ada@operator.example", { name, role: "viewer" }), "body", "/name"],
      [
        "profile",
        customer.callJson("POST", `/api/customers/${customer.slug}/kyc-profiles`, {
          name,
          verification_type: "individual",
          ...address,
        }),
        "body",
        "/name",
      ],
      [
        "address",
        customer.callJson("POST", `/v1/numbers/num_${crypto.randomUUID()}/KYC/address`, {
          verification_type: "individual",
          ...address,
          city: name,
        }),
        "body",
        "/city",
      ],
      [
        "webhook description",
        customer.callJson("POST", `/api/customers/${customer.slug}/webhook-endpoints`, {
          url: "https://hooks.example.com/x",
          description: name,
        }),
        "body",
        "/description",
      ],
      [
        "requirement",
        admin("PUT", `/admin/catalog/US/${uniqueNumberType()}/requirements`, {
          verification_types: ["individual"],
          address_in_country: false,
          fields: { individual: [], business: [] },
          documents: [{ key: "id", document_types: ["identity"], applies_to: ["individual"], description: name }],
        }),
        "body",
        "/documents/0/description",
      ],
      [
        "rejection",
        admin("POST", `/admin/kyc/${kycId}/review`, { status: "rejected", rejection_reason: name }),
        "body",
        "/rejection_reason",
      ],
      [
        "reason's note",
        admin("POST", `/admin/kyc/${kycId}/review`, {
          status: "rejected",
          rejection_reason: "Unreadable",
          reasons: [{ code: "other", note: name }],
        }),
        "body",
        "/reasons/0/note",
      ],
      ["search", customer.call(`${ordersPath(customer)}?search=${encodeURIComponent(name)}`), "query", "search"],
    ];
    for (const [what, answer, location, pointer] of refusals) {
      const refused = await problem(await answer, 400, "validation_error");
      expect(refused.errors, what).toEqual([{ location, pointer, message: invisible("U+200B") }]);
    }
  });

  it("refuses lone surrogates, which have no UTF-8 form", async () => {
    const customer = await orderable();
    for (const body of [
      '{"number_type":"mobile","country_code":"US","quantity":1,"notes":"\\ud800"}',
      '{"number_type":"\\udfff","country_code":"US","quantity":1}',
    ]) {
      const response = await customer.call(ordersPath(customer), {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body,
      });
      const refused = await problem(response, 400, "validation_error");
      expect(refused.errors?.[0]?.message).toBe("must be valid Unicode text (no unpaired surrogates)");
    }
    // A pair is a character like any other.
    const paired = await customer.callJson("POST", ordersPath(customer), { ...order, notes: "\u{1F4DE} call" });
    expect(paired.status).toBe(201);
    await paired.text();
    expect(await orderCount(customer)).toBe(1);
  });

  it("answers a body that is not valid UTF-8 with 400 malformed_json instead of replacing the bytes", async () => {
    const customer = await orderable();
    const encoder = new TextEncoder();
    const body = new Uint8Array([
      ...encoder.encode('{"number_type":"mobile","country_code":"US","quantity":1,"notes":"'),
      0xff,
      0xfe,
      ...encoder.encode('"}'),
    ]);
    const response = await customer.call(ordersPath(customer), {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body,
    });
    expect((await problem(response, 400, "malformed_json")).detail).toBe("The request body is not valid UTF-8");
    expect(await orderCount(customer)).toBe(0);
  });

  it("refuses a JSON body that names a key twice in one object, at any depth, on every kind of JSON route", async () => {
    const customer = await orderable();
    const send = (path: string, body: string, method = "POST") =>
      call(path, {
        method,
        headers: { Authorization: `Bearer ${TEST_ADMIN_TOKEN}`, "Content-Type": "application/json" },
        body,
      });
    const refusedAt = async (response: Response, pointer: string) => {
      const refused = await problem(response, 400, "malformed_json");
      expect(refused.detail).toBe(`The request body names a key twice in one object, at ${pointer}; each key may appear once`);
      expect(refused.errors).toEqual([{ location: "body", pointer, message: "is named twice in its object" }]);
    };
    // Last-wins parsing would make the member an owner.
    const user = await json(
      await operator.admin.customers[":slug"].users.$post({
        param: { slug: customer.slug },
        json: { email: `member.${crypto.randomUUID()}@example.com`, name: "Member", role: "member" },
      }),
      201,
    );
    await refusedAt(await send(`/admin/users/${user.user_id}`, '{"role":"member","role":"owner"}', "PATCH"), "/role");
    const after = await json(await operator.admin.users[":user_id"].$get({ param: { user_id: user.user_id } }), 200);
    expect(after.role).toBe("member");
    // Keys compared as decoded ("\u006eotes" is "notes"); quotes, braces and commas inside strings are text.
    const tricky = JSON.stringify('a \\"}, {"notes": [');
    const orderBody = `{"number_type":"mobile","country_code":"US","quantity":1,"notes":${tricky},"\\u006eotes":"b"}`;
    expect(JSON.parse(orderBody).notes).toBe("b");
    await refusedAt(
      await customer.call(ordersPath(customer), {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: orderBody,
      }),
      "/notes",
    );
    // The same key in two objects, or in an object and the object inside it, is no duplicate.
    const nested = await customer.callJson("POST", ordersPath(customer), { ...order, notes: '"notes": "x"' });
    expect(nested.status).toBe(201);
    await nested.text();
    expect(await orderCount(customer)).toBe(1);
    // A large body read after its route's guards (the stock import), pointed to inside its array, "/" and "~" escaped.
    const row = (phone: string) => `{"phone_number":"${phone}","country_code":"US","number_type":"mobile"}`;
    await refusedAt(
      await send("/admin/stock", `{"numbers":[${row("+14155550100")},{"a/b~":1,"phone_number":"+1","a/b~":2}]}`),
      "/numbers/1/a~1b~0",
    );
    // The KYC routes, which check their one JSON body after the guard.
    await refusedAt(
      await customer.call(`/v1/numbers/num_${crypto.randomUUID()}/KYC/address`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: '{"verification_type":"individual","address":{},"verification_type":"business"}',
      }),
      "/verification_type",
    );
  });

  it("answers a JSON body in a charset other than UTF-8 with 415; names of UTF-8 are fine", async () => {
    const customer = await orderable();
    const send = (contentType: string) =>
      customer.call(ordersPath(customer), {
        method: "POST",
        headers: { "Content-Type": contentType },
        body: JSON.stringify(order),
      });
    for (const contentType of [
      "application/json; charset=utf-16",
      "application/json;charset=ISO-8859-1",
      'application/json; charset="latin1"',
      "application/json; charset=nonsense",
    ]) {
      const refused = await problem(await send(contentType), 415, "unsupported_media_type");
      expect(refused.detail).toContain("must be UTF-8");
    }
    for (const contentType of [
      "application/json; charset=utf-8",
      "application/json; charset=UTF-8",
      'application/json; charset="utf8"',
      "application/json",
    ]) {
      const accepted = await send(contentType);
      expect(accepted.status, contentType).toBe(201);
      await accepted.text();
    }
    expect(await orderCount(customer)).toBe(4);
  });

  it("holds the KYC address body to the same rules", async () => {
    const customer = await createCustomer();
    const number = `num_${crypto.randomUUID()}`;
    const refused = await customer.call(`/v1/numbers/${number}/KYC/address`, {
      method: "POST",
      headers: { "Content-Type": "application/json; charset=utf-16" },
      body: "{}",
    });
    await problem(refused, 415, "unsupported_media_type");
    const invalid = await customer.call(`/v1/numbers/${number}/KYC/address`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: new Uint8Array([0x7b, 0xc0, 0x7d]),
    });
    await problem(invalid, 400, "malformed_json");
  });
});

describe("where the JSON body limit stands", () => {
  const big = JSON.stringify({ notes: "x".repeat(70_000) });
  const post = (path: string, headers: Record<string, string> = {}) =>
    call(path, { method: "POST", headers: { ...headers, "Content-Type": "application/json" }, body: big });

  it("refuses an oversized body to /api and /admin before the guard, unread", async () => {
    await problem(await post("/api/customers/anyone/orders"), 413, "payload_too_large");
    await problem(await post("/admin/customers"), 413, "payload_too_large");
  });

  it("guards the KYC routes first, then limits the address body; the upload reads its own body", async () => {
    const customer = await createCustomer();
    const number = `num_${crypto.randomUUID()}`;
    await problem(await post(`/v1/numbers/${number}/KYC/address`), 401, "unauthorized");
    const auth = { Authorization: `Bearer ${customer.key}` };
    await problem(await post(`/v1/numbers/${number}/KYC/address`, auth), 413, "payload_too_large");
    await problem(await post(`/v1/numbers/${number}/KYC/files`, auth), 404, "not_found");
  });
});

describe("unexpected errors", () => {
  it("logs an error with the errors it wraps, but never a failed query's values", () => {
    const d1 = new Error("D1_ERROR: UNIQUE constraint failed");
    const query = new Error('Failed query: insert into "kyc_verifications" values (?, ?)\nparams: 12-3456789,1 Secret Lane', {
      cause: d1,
    });
    const described = describeError(query);
    expect(described).toContain('Failed query: insert into "kyc_verifications"');
    expect(described).toContain("params: (withheld)");
    expect(described).toContain("Caused by: Error: D1_ERROR: UNIQUE constraint failed");
    expect(described).not.toContain("Secret Lane");
    expect(described).not.toContain("12-3456789");
    expect(described).toContain("    at ");

    // A value that reads like a stack frame does not move where the frames start.
    const tricky = new Error("Failed query: update orders set notes = ?\nparams: x\n    at here, and then Jane Doe");
    expect(describeError(tricky)).not.toContain("Jane Doe");
  });

  it("answers 500 internal_error without leaking the error, and logs it with the request id", async () => {
    const app = createApp();
    app.get("/explode", () => {
      throw new Error("SELECT secret FROM internals");
    });
    const { result: body, lines } = await withLogs(async () => {
      const ctx = createExecutionContext();
      const response = await app.fetch(addressed(`${ORIGIN}/explode`), env, ctx);
      await waitOnExecutionContext(ctx);
      return problem(response, 500, "internal_error");
    });
    expect(JSON.stringify(body)).not.toContain("secret");
    const line = lines.at(-1);
    expect(line).toMatchObject({ level: "error", status: 500, path: "/explode", request_id: body.request_id });
    expect(line?.error).toContain("SELECT secret FROM internals");
  });

  it("logs one JSON line per request with method, path, status, duration, request id and customer", async () => {
    const customer = await createCustomer();
    const { result: response, lines } = await withLogs(async () => {
      const response = await listOrders(customer);
      await response.text();
      return response;
    });
    expect(lines).toHaveLength(1);
    const line = lines[0];
    expect(line).toMatchObject({
      method: "GET",
      path: `/api/customers/${customer.slug}/orders`,
      status: 200,
      request_id: response.headers.get("X-Request-Id"),
      customer_id: customer.customerId,
    });
    expect(typeof line?.duration_ms).toBe("number");
  });
});
