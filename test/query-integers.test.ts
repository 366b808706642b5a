// Integers in query strings and paths are plain decimal digits: every integer parameter /openapi.json describes refuses
// what Number() would take (hex, exponents, signs, spaces) and values past its bounds, never rounding a long one.
import { beforeAll, describe, expect, it } from "vitest";
import { resolved } from "./api-description.ts";
import { TEST_ADMIN_TOKEN } from "./constants.ts";
import { call, createCustomer, json, makeOrderable, problem, type TestCustomer } from "./helpers.ts";

interface IntegerParameter {
  operation: string;
  path: string;
  name: string;
  in: "query" | "path";
  schema: { type: string; minimum?: number; maximum?: number; default?: number };
}

type ParameterObject = { name?: string; in?: string; schema?: IntegerParameter["schema"] };
type Described = {
  security: Record<string, string[]>[];
  parameters?: (ParameterObject | { $ref: string })[];
};

let parameters: IntegerParameter[] = [];

beforeAll(async () => {
  await makeOrderable("US", "mobile");
  const response = await call("/openapi.json");
  const document: { paths: Record<string, Record<string, Described>>; components: { parameters?: Record<string, unknown> } } =
    await response.json();
  parameters = Object.entries(document.paths).flatMap(([path, item]) =>
    // A HEAD is its GET's route, parameters and all (test/properties-operations.test.ts holds it to its GET).
    Object.entries(item)
      .filter(([method]) => method !== "head")
      .flatMap(([method, operation]) =>
        (operation.parameters ?? [])
          .map((parameter) => resolved<ParameterObject>(document, "parameters", parameter))
          .filter((parameter) => parameter.schema?.type === "integer")
          .map((parameter) => ({ ...parameter, operation: `${method.toUpperCase()} ${path}`, path }) as IntegerParameter),
      ),
  );
});

/** The query parameters an operation requires besides the one tested (the search names an orderable pair). */
const REQUIRED_QUERY: Record<string, string> = {
  "/api/customers/{customer_slug}/available-numbers": "country_code=US&number_type=mobile",
};

/**
 * The parameter's operation, with `value` in the parameter's place, as the operation's own audience: the operator, or
 * the customer (one per parameter, as each key has a request budget of its own).
 */
function request(parameter: IntegerParameter, value: string, customer: TestCustomer): Promise<Response> {
  const path = parameter.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    if (name === parameter.name) return value;
    if (name === "customer_slug" || name === "slug") return customer.slug;
    return crypto.randomUUID();
  });
  const required = REQUIRED_QUERY[parameter.path];
  const query = parameter.in === "query" ? `?${required ? `${required}&` : ""}${parameter.name}=${value}` : "";
  const credential = path.startsWith("/admin") ? `Bearer ${TEST_ADMIN_TOKEN}` : `Bearer ${customer.key}`;
  return call(`${path}${query}`, { headers: { Authorization: credential } });
}

/** What Number() or parseInt() would have taken, and digit strings too long to be a safe integer. */
const NOT_DECIMAL_DIGITS = [
  "0x10",
  "1e3",
  "1E1",
  "+1",
  "-1",
  "%201",
  "1%20",
  "%09" + "1",
  "1.0",
  "1.",
  ".5",
  "1_0",
  "0b1",
  "0o7",
  "Infinity",
  "NaN",
  "",
  "%EF%BC%91", // a fullwidth digit one
  "007",
  "9007199254740993",
  "1".repeat(400),
];

describe("integer parameters", () => {
  it("are described as integers with their bounds", () => {
    const byName = (name: string) =>
      parameters.filter((parameter) => parameter.name === name).map((parameter) => parameter.schema);
    expect(new Set(parameters.map((parameter) => parameter.name))).toEqual(
      new Set(["page", "limit", "quantity_min", "quantity_max"]),
    );
    expect(byName("page").length).toBeGreaterThanOrEqual(6);
    for (const schema of byName("page")) expect(schema).toMatchObject({ type: "integer", minimum: 1, default: 1 });
    // Lists answer 10 by default; the search 20 (LIFECYCLE.md).
    for (const parameter of parameters.filter((parameter) => parameter.name === "limit")) {
      const fallback = parameter.path.endsWith("/available-numbers") ? 20 : 10;
      expect(parameter.schema, parameter.operation).toMatchObject({
        type: "integer",
        minimum: 1,
        maximum: 100,
        default: fallback,
      });
    }
    for (const schema of [...byName("quantity_min"), ...byName("quantity_max")]) {
      expect(schema).toMatchObject({ type: "integer", minimum: 1 });
    }
  });

  it("take plain decimal digits within their bounds", async () => {
    for (const parameter of parameters) {
      const customer = await createCustomer("integers");
      // A list under a resource named by id (an endpoint's deliveries) gets a random one: past validation, a 404.
      const expected = /\{(?!customer_slug\}|slug\})\w+\}/.test(parameter.path) ? 404 : 200;
      for (const value of [String(parameter.schema.minimum ?? 0), String(parameter.schema.maximum ?? 10)]) {
        const response = await request(parameter, value, customer);
        expect(response.status, `${parameter.operation} ${parameter.name}=${value}`).toBe(expected);
        await response.text();
      }
    }
  });

  it("refuse anything else with 400 validation_error naming the parameter", async () => {
    for (const parameter of parameters) {
      const customer = await createCustomer("integers");
      for (const value of NOT_DECIMAL_DIGITS) {
        const label = `${parameter.operation} ${parameter.name}=${value.slice(0, 20)}`;
        const response = await request(parameter, value, customer);
        expect(response.status, label).toBe(400);
        const body = await problem(response, 400, "validation_error");
        expect(body.errors, label).toEqual([{ location: parameter.in, pointer: parameter.name, message: expect.any(String) }]);
      }
    }
  });

  it("refuse values past their bounds, however long", async () => {
    const limit = parameters.find((parameter) => parameter.name === "limit" && parameter.path.includes("/orders"));
    if (!limit) expect.fail("no limit parameter on the orders list");
    const customer = await createCustomer("integers");
    const refusals: [string, string][] = [
      ["0", "must be at least 1"],
      ["101", "must be at most 100"],
      ["12345678901234567890", "must be at most 100"],
    ];
    for (const [value, message] of refusals) {
      const body = await problem(await request(limit, value, customer), 400, "validation_error");
      expect(body.errors?.[0]?.message).toBe(message);
    }
    const page = await json(
      await customer.account.orders.$get({ param: { customer_slug: customer.slug }, query: { page: "9007199254740991" } }),
      200,
    );
    expect(page.meta).toMatchObject({ page: 9007199254740991, hasNextPage: false });
  });
});
