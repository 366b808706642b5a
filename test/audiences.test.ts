// Default deny, proven over the API description: every operation /openapi.json lists answers 401 without a credential
// and with the other audience's, unless it is one of the few public ones; and the app has no route it does not list.
import { beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../src/app.ts";
import { TEST_ADMIN_TOKEN } from "./constants.ts";
import { call, clientAddress, createCustomer, problem, type TestCustomer } from "./helpers.ts";

/** The operations anyone may call; everything else needs a customer's API key or the operator's token. */
const PUBLIC_OPERATIONS = ["getHealth", "getProblemType", "headGetHealth", "headGetProblemType"];
/** Routes of the public audience that the description does not list: the description itself and its reference page. */
const UNDESCRIBED_PUBLIC_ROUTES = ["GET /openapi.json", "GET /docs", "GET /ui/assets/ui.css", "GET /ui/assets/icon.svg"];

type Operation = { operationId: string; security: Record<string, string[]>[] };
interface Described {
  method: string;
  path: string;
  operation: Operation;
}

let operations: Described[] = [];
let customer: TestCustomer;

beforeAll(async () => {
  const response = await call("/openapi.json");
  expect(response.status).toBe(200);
  const { paths }: { paths: Record<string, Record<string, Operation>> } = await response.json();
  operations = Object.entries(paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => ({ method: method.toUpperCase(), path, operation })),
  );
  customer = await createCustomer("audience");
});

/** A concrete URL for a described path: each {param} becomes a value of the right shape for the customer. */
function concrete(path: string): string {
  return path.replace(/\{(\w+)\}/g, (_, name: string) => {
    if (name === "customer_slug" || name === "slug") return customer.slug;
    if (name === "country_code") return "US";
    if (name === "number_type") return "mobile";
    if (name === "code") return "not_found";
    return crypto.randomUUID();
  });
}

/** The walk's request; each from an address of its own, as the walk fails authentication far more than 30 times. */
function request(described: Described, credential: Record<string, string>): Promise<Response> {
  const hasBody = !["GET", "HEAD", "DELETE"].includes(described.method);
  const headers = { ...credential, "CF-Connecting-IP": clientAddress() };
  return call(concrete(described.path), {
    method: described.method,
    headers: hasBody ? { ...headers, "Content-Type": "application/json" } : headers,
    body: hasBody ? "{}" : undefined,
  });
}

/** The credentials of each audience; a request with one of them to another audience's route must be refused. */
function credentials(operation: Operation): { own: Record<string, string>; others: Record<string, string>[] } {
  const customerKeys: Record<string, string>[] = [{ Authorization: `Bearer ${customer.key}` }, { "X-API-Key": customer.key }];
  const operatorToken = { Authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
  const schemes = operation.security.flatMap((requirement) => Object.keys(requirement));
  if (schemes.includes("adminToken")) return { own: operatorToken, others: customerKeys };
  return { own: { Authorization: `Bearer ${customer.key}` }, others: [operatorToken] };
}

describe("default deny over every described operation", () => {
  it("describes the public operations as public (security: []) and no others", () => {
    expect(operations.length).toBeGreaterThan(30);
    const publicOnes = operations.filter((d) => d.operation.security.length === 0).map((d) => d.operation.operationId);
    expect(publicOnes.toSorted()).toEqual(PUBLIC_OPERATIONS.toSorted());
  });

  it("answers every non-public operation 401 without a credential, and with the other audience's", async () => {
    for (const described of operations.filter((d) => d.operation.security.length > 0)) {
      const label = `${described.method} ${described.path}`;
      const { others } = credentials(described.operation);
      for (const headers of [{}, ...others]) {
        const response = await request(described, headers);
        expect(response.status, `${label} with ${JSON.stringify(Object.keys(headers))}`).toBe(401);
        // A HEAD's answer is its GET's without the body.
        if (described.method === "HEAD") await response.arrayBuffer();
        else await problem(response, 401, "unauthorized");
      }
    }
  });

  it("reaches every non-public operation with its own audience's credential (the walk's requests are real)", async () => {
    for (const described of operations.filter((d) => d.operation.security.length > 0)) {
      const response = await request(described, credentials(described.operation).own);
      const text = await response.text();
      const label = `${described.method} ${described.path}: ${response.status} ${text}`;
      expect([401, 405, 429], label).not.toContain(response.status);
      expect(text, label).not.toContain("No route for");
    }
  });

  it("answers the public operations without a credential", async () => {
    for (const described of operations.filter((d) => d.operation.security.length === 0)) {
      const response = await request(described, {});
      await response.text();
      expect(response.status, `${described.method} ${described.path}`).toBe(200);
    }
  });

  it("has no route the description does not list, apart from the description, its page, the pages' assets and the pages", () => {
    const described = new Set(operations.map((d) => `${d.method} ${d.path.replace(/\{(\w+)\}/g, ":$1")}`));
    const routes = createApp()
      // The pages are HTML for people, guarded by the portal's session (test/portal-sessions.test.ts walks them) or
      // the console's staff identity (test/staff.test.ts).
      .routes.filter((route) => route.method !== "ALL" && !route.path.startsWith("/portal") && !route.path.startsWith("/ops"))
      .map((route) => `${route.method} ${route.path}`);
    const undescribed = [...new Set(routes)].filter((route) => !described.has(route));
    expect(undescribed.toSorted()).toEqual(UNDESCRIBED_PUBLIC_ROUTES.toSorted());
  });
});
