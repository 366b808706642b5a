// The staff's roles, proved by a walk: the API description must declare exactly OPERATOR.md's matrix, written by hand
// (test/role-matrix.ts), as x-roles, and every /admin operation is called by a staff member of every role and by the
// ADMIN_TOKEN. A refused role gets 403 forbidden before its input is validated or anything is looked up (so malformed
// input and unknown ids are refused the same), and changes nothing. The guard reads the roles of the one route that
// can match a path.
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../src/app.ts";
import type { StaffRole } from "../src/db/schema.ts";
import { markedRoles, roleMark } from "../src/staff/guard.ts";
import { TEST_ADMIN_TOKEN } from "./constants.ts";
import { addressed, bodyOf, call, clientAddress, json, ORIGIN, operator, problem } from "./helpers.ts";
import { EVERY_ROLE, ROLE_MATRIX } from "./role-matrix.ts";
import { type StaffMember, staffMember } from "./staff.ts";
import { installWriteCounter, removeWriteCounter, storageFingerprint } from "./write-counter.ts";

interface AdminOperation {
  operationId: string;
  method: string;
  path: string;
  roles: StaffRole[];
}

let operations: AdminOperation[] = [];
let staff: Record<StaffRole, StaffMember>;

beforeAll(async () => {
  const { paths } = (await (await call("/openapi.json")).json()) as {
    paths: Record<string, Record<string, { operationId: string; "x-roles"?: StaffRole[] }>>;
  };
  operations = Object.entries(paths)
    .filter(([path]) => path.startsWith("/admin"))
    .flatMap(([path, item]) =>
      Object.entries(item).map(([method, operation]) => ({
        operationId: operation.operationId,
        method: method.toUpperCase(),
        path,
        roles: operation["x-roles"] ?? [],
      })),
    );
  staff = {
    viewer: await staffMember("viewer"),
    fulfilment: await staffMember("fulfilment"),
    compliance: await staffMember("compliance"),
    admin: await staffMember("admin"),
  };
  await installWriteCounter();
});
afterAll(removeWriteCounter);

/** A concrete URL whose every parameter is malformed, so that anything but the role check would refuse it as a 400. */
function malformed(path: string): string {
  return path.replace(/\{(\w+)\}/g, "%20not%20valid%20");
}

function send(operation: AdminOperation, headers: Record<string, string>): Promise<Response> {
  const hasBody = !["GET", "DELETE"].includes(operation.method);
  return call(malformed(operation.path), {
    method: operation.method,
    headers: {
      ...headers,
      "CF-Connecting-IP": clientAddress(),
      ...(hasBody ? { "Content-Type": "application/json" } : {}),
    },
    body: hasBody ? '{"unexpected": [' : undefined,
  });
}

/** A route pattern's segment as the regular expression its parameter takes, or undefined for a literal. */
function parameterPattern(segment: string): RegExp | undefined {
  if (!segment.startsWith(":")) return undefined;
  if (segment.endsWith("?")) throw new Error(`An optional parameter is not judged here: ${segment}`);
  return new RegExp(`^(?:${/\{(.+)\}$/.exec(segment)?.[1] ?? "[^/]+"})$`);
}

/**
 * Whether one path can match both of Hono's patterns (literal segments, `:name`, `:name{regex}`, `*`). Two
 * parameters are taken to meet, and `*` to match whatever follows, so an overlap is never missed.
 */
function canMatchOnePath(a: string, b: string): boolean {
  const [left, right] = [a.split("/"), b.split("/")];
  for (let i = 0; i < Math.max(left.length, right.length); i++) {
    const [x, y] = [left[i], right[i]];
    if (x === "*" || y === "*") return true;
    if (x === undefined || y === undefined) return false;
    const [px, py] = [parameterPattern(x), parameterPattern(y)];
    if (px && py) continue;
    if (!(px ? px.test(y) : py ? py.test(x) : x === y)) return false;
  }
  return true;
}

describe("the staff's roles", () => {
  it("are declared on every /admin operation as the hand-written matrix says (a HEAD as its GET)", () => {
    expect(operations.length).toBeGreaterThan(25);
    const declared = Object.fromEntries(operations.map((o) => [o.operationId, o.roles.toSorted()]));
    const expected = Object.fromEntries(
      operations.map((o) => {
        const get = o.method === "HEAD" ? operations.find((g) => g.method === "GET" && g.path === o.path) : o;
        return [o.operationId, (ROLE_MATRIX[get?.operationId ?? ""] ?? []).toSorted()];
      }),
    );
    expect(declared).toEqual(expected);
    expect(Object.keys(ROLE_MATRIX).filter((id) => !(id in declared))).toEqual([]);
  });

  // 150 requests, each with a fingerprint of the storage around it: longer than the default 5 s on a busy machine.
  it("refuse a role before validation or lookup, changing nothing, and let every allowed role and the token past", {
    timeout: 30_000,
  }, async () => {
    let walked = 0;
    // A HEAD runs its GET's route, guard included (test/properties-operations.test.ts holds it to its GET's answer).
    const walkedOperations = operations.filter((operation) => operation.method !== "HEAD");
    for (const operation of walkedOperations) {
      const callers: [string, Record<string, string>, boolean][] = [
        ...EVERY_ROLE.map((role): [string, Record<string, string>, boolean] => [
          role,
          staff[role].headers,
          operation.roles.includes(role),
        ]),
        ["ADMIN_TOKEN", { Authorization: `Bearer ${TEST_ADMIN_TOKEN}` }, true],
      ];
      for (const [who, headers, allowed] of callers) {
        const before = await storageFingerprint();
        const answer = await send(operation, headers);
        walked++;
        const label = `${operation.method} ${operation.path} as ${who}`;
        if (allowed) {
          expect(answer.status, label).not.toBe(403);
          expect(answer.status, label).toBeLessThan(500);
          await answer.arrayBuffer();
          continue;
        }
        const body = await problem(answer, 403, "forbidden");
        expect(body.detail, label).toContain(`yours is ${who}`);
        expect(await storageFingerprint(), label).toEqual(before);
      }
    }
    expect(walked).toBe(walkedOperations.length * 5);
  });

  it("are checked before a stored answer is looked up: a member demoted since is refused every POST and PATCH, never replayed", {
    timeout: 30_000,
  }, async () => {
    // Another admin, so that this one is never the last and may be demoted.
    await staffMember("admin");
    const member = await staffMember("admin");
    const changes = operations.filter((o) => ["POST", "PATCH"].includes(o.method) && !o.roles.includes("viewer"));
    expect(changes.length).toBeGreaterThanOrEqual(10);
    const withKey = (operation: AdminOperation) => ({ ...member.headers, "Idempotency-Key": `walk-${operation.operationId}` });
    // As an admin: each answer (a refusal of the malformed input) is stored under its key.
    for (const operation of changes) {
      const answer = await send(operation, withKey(operation));
      expect(answer.status, operation.operationId).toBeLessThan(500);
      await answer.arrayBuffer();
    }
    await json(
      await operator.admin.staff[":email"].$put({ param: { email: member.email }, json: { name: "Demoted", role: "viewer" } }),
      200,
    );
    for (const operation of changes) {
      const answer = await send(operation, withKey(operation));
      expect(answer.headers.get("Idempotent-Replayed"), operation.operationId).toBeNull();
      await problem(answer, 403, "forbidden");
    }
  });

  it("are the route's that runs: a later route matching the same path neither tightens nor loosens it", async () => {
    // GET /admin/stock/summary is every role's; a route added after it that matches its path too is the admin's.
    const app = createApp();
    app.get("/admin/stock/:phone_number", roleMark(["admin"]), (c) => c.text("the later route"));
    const send = async (path: string) => {
      const ctx = createExecutionContext();
      const answer = await app.fetch(addressed(`${ORIGIN}${path}`, { headers: staff.viewer.headers }), env, ctx);
      await waitOnExecutionContext(ctx);
      return answer;
    };
    expect(await bodyOf<{ total: number }>(await send("/admin/stock/summary"))).toHaveProperty("total");
    expect((await problem(await send("/admin/stock/%2B15550100"), 403, "forbidden")).detail).toContain("yours is viewer");
  });

  it("are read from the one route that can match a path: no other route of its method meets a role-marked one", () => {
    // The guard takes the first role mark among the matched routes; were another route to match the same path, a
    // request for it could run under the roles of the route registered first.
    const handlers = createApp().routes.filter((route) => route.method !== "ALL");
    const routes = new Map<string, { method: string; path: string; marks: number }>();
    for (const { method, path, handler } of handlers) {
      const route = routes.get(`${method} ${path}`) ?? { method, path, marks: 0 };
      if (markedRoles(handler)) route.marks++;
      routes.set(`${method} ${path}`, route);
    }
    const marked = [...routes.values()].filter((route) => route.marks > 0);
    expect(marked.length).toBeGreaterThan(40);
    const clashes = marked.flatMap((route) => [
      ...(route.marks > 1 ? [`${route.method} ${route.path} has ${route.marks} role marks`] : []),
      ...(/^\/(admin|ops)\//.test(route.path) ? [] : [`${route.method} ${route.path} is outside the operator's guard`]),
      ...[...routes.values()]
        .filter((other) => other !== route && other.method === route.method && canMatchOnePath(route.path, other.path))
        .map((other) => `${route.method} ${route.path} meets ${other.path}`),
    ]);
    expect(clashes).toEqual([]);
    expect(canMatchOnePath("/admin/stock/:phone_number", "/admin/stock/summary")).toBe(true);
    expect(canMatchOnePath("/admin/stock/:phone_number{\\+[0-9]+}", "/admin/stock/summary")).toBe(false);
    expect(canMatchOnePath("/ops/a/:x/c", "/ops/a/b/:y")).toBe(true);
  });
});
