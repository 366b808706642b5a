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
import { ELEVATED_MATRIX, EVERY_ROLE, ROLE_MATRIX } from "./role-matrix.ts";
import { type StaffMember, staffMember } from "./staff.ts";
import { installWriteCounter, removeWriteCounter, storageFingerprint } from "./write-counter.ts";

interface ElevatedFlag {
  flag: string;
  roles: StaffRole[];
}

interface AdminOperation {
  operationId: string;
  method: string;
  path: string;
  roles: StaffRole[];
  elevated: ElevatedFlag | undefined;
}

let operations: AdminOperation[] = [];
let staff: Record<StaffRole, StaffMember>;

beforeAll(async () => {
  const { paths } = (await (await call("/openapi.json")).json()) as {
    paths: Record<string, Record<string, { operationId: string; "x-roles"?: StaffRole[]; "x-elevated"?: ElevatedFlag }>>;
  };
  operations = Object.entries(paths)
    .filter(([path]) => path.startsWith("/admin"))
    .flatMap(([path, item]) =>
      Object.entries(item).map(([method, operation]) => ({
        operationId: operation.operationId,
        method: method.toUpperCase(),
        path,
        roles: operation["x-roles"] ?? [],
        elevated: operation["x-elevated"],
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

/** The operation called with malformed input (a body that is not JSON, or `body`), so only the guard lets it run. */
function send(operation: AdminOperation, headers: Record<string, string>, body = '{"unexpected": ['): Promise<Response> {
  const hasBody = !["GET", "DELETE"].includes(operation.method);
  return call(malformed(operation.path), {
    method: operation.method,
    headers: {
      ...headers,
      "CF-Connecting-IP": clientAddress(),
      ...(hasBody ? { "Content-Type": "application/json" } : {}),
    },
    body: hasBody ? body : undefined,
  });
}

/** A JSON body that sets the flag and is otherwise invalid for every operation (an unknown field). */
const raising = (flag: string) => JSON.stringify({ [flag]: true, unexpected: true });

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

  it("declare each admin-only flag as the hand-written matrix says (x-elevated)", () => {
    const declared = Object.fromEntries(
      operations.filter((o) => o.elevated && o.method !== "HEAD").map((o) => [o.operationId, o.elevated]),
    );
    expect(declared).toEqual(ELEVATED_MATRIX);
  });

  it("refuse an admin-only flag to every other role before validation, changing nothing, even in a stored answer's replay", {
    timeout: 30_000,
  }, async () => {
    const elevated = operations.filter((o) => o.elevated && o.method !== "HEAD");
    expect(elevated.map((o) => o.operationId).toSorted()).toEqual(Object.keys(ELEVATED_MATRIX).toSorted());
    // An admin demoted to fulfilment after storing answers under their keys.
    await staffMember("admin");
    const demoted = await staffMember("admin");
    const withKey = (operation: AdminOperation) => ({ ...demoted.headers, "Idempotency-Key": `flag-${operation.operationId}` });
    for (const operation of elevated) {
      const { flag, roles } = operation.elevated!;
      const stored = await send(operation, withKey(operation), raising(flag));
      expect(stored.status, operation.operationId).toBe(400);
      await stored.arrayBuffer();
      for (const role of EVERY_ROLE.filter((r) => operation.roles.includes(r) && !roles.includes(r))) {
        const before = await storageFingerprint();
        const body = await problem(await send(operation, staff[role].headers, raising(flag)), 403, "forbidden");
        expect(body.detail).toBe(`Setting ${flag} needs the role ${roles.join(" or ")}; yours is ${role}`);
        expect(await storageFingerprint()).toEqual(before);
        // Without the flag the same role reaches validation.
        await problem(await send(operation, staff[role].headers, JSON.stringify({ unexpected: true })), 400, "validation_error");
      }
    }
    await json(
      await operator.admin.staff[":email"].$put({
        param: { email: demoted.email },
        json: { name: "Demoted", role: "fulfilment" },
      }),
      200,
    );
    for (const operation of elevated) {
      const answer = await send(operation, withKey(operation), raising(operation.elevated!.flag));
      expect(answer.headers.get("Idempotent-Replayed"), operation.operationId).toBeNull();
      await problem(answer, 403, "forbidden");
    }
  });

  it('judge an admin-only flag on the route that declares it: true in JSON or "true" in a form, from the request', async () => {
    const app = createApp();
    app.post("/admin/flag-check", roleMark(["fulfilment", "admin"], { flag: "force", roles: ["admin"] }), (c) => c.text("ran"));
    const send = async (who: StaffMember, type: string, body: string) => {
      const ctx = createExecutionContext();
      const request = addressed(`${ORIGIN}/admin/flag-check`, {
        method: "POST",
        headers: { ...who.headers, "Content-Type": type },
        body,
      });
      const answer = await app.fetch(request, env, ctx);
      await waitOnExecutionContext(ctx);
      return answer;
    };
    const forced = '{"force": true}';
    expect(await (await send(staff.fulfilment, "application/json", '{"force": false}')).text()).toBe("ran");
    expect(await (await send(staff.fulfilment, "application/json", '{"force": "true"}')).text()).toBe("ran");
    expect(await (await send(staff.admin, "application/json", forced)).text()).toBe("ran");
    await problem(await send(staff.fulfilment, "application/json", forced), 403, "forbidden");
    await problem(await send(staff.fulfilment, "application/json; charset=utf-8", forced), 403, "forbidden");
    await problem(await send(staff.fulfilment, "application/x-www-form-urlencoded", "force=true"), 403, "forbidden");
    expect(await (await send(staff.fulfilment, "application/x-www-form-urlencoded", "force=on")).text()).toBe("ran");
    // A repeated field sets the flag whichever value says "true" (a page reads the first, a parser may keep the last).
    await problem(await send(staff.fulfilment, "application/x-www-form-urlencoded", "force=true&force=no"), 403, "forbidden");
    await problem(await send(staff.fulfilment, "application/x-www-form-urlencoded", "force=no&force=true"), 403, "forbidden");
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
