// The staff's roles, proved by a walk: the matrix below is written by hand from OPERATOR.md's table (not read from the
// code), the API description must declare exactly it (x-roles), and every /admin operation is called by a staff
// member of every role and by the ADMIN_TOKEN. A refused role gets 403 forbidden before its input is validated or
// anything is looked up (so malformed input and unknown ids are refused the same), and changes nothing.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { StaffRole } from "../src/db/schema.ts";
import { TEST_ADMIN_TOKEN } from "./constants.ts";
import { call, clientAddress, json, operator, problem } from "./helpers.ts";
import { type StaffMember, staffMember } from "./staff.ts";
import { installWriteCounter, removeWriteCounter, storageFingerprint } from "./write-counter.ts";

const EVERY_ROLE: StaffRole[] = ["viewer", "fulfilment", "compliance", "admin"];
const FULFILMENT: StaffRole[] = ["fulfilment", "admin"];
const COMPLIANCE: StaffRole[] = ["compliance", "admin"];
const ADMIN: StaffRole[] = ["admin"];

/**
 * OPERATOR.md: every role reads the queues, orders, accounts, catalog, requirements, stock and the audit log; order
 * status moves, allocation, stock import and removal are fulfilment's; reviews and documents' bytes compliance's;
 * customers, API keys, customer users and invitations, catalog pairs and staff the admin's; the admin may do all.
 */
const MATRIX: Record<string, StaffRole[]> = {
  listCustomers: EVERY_ROLE,
  getCustomer: EVERY_ROLE,
  listApiKeys: EVERY_ROLE,
  getApiKey: EVERY_ROLE,
  listCatalog: EVERY_ROLE,
  listOrderQueue: EVERY_ROLE,
  getAnyOrder: EVERY_ROLE,
  getUser: EVERY_ROLE,
  listReviewQueue: EVERY_ROLE,
  getAnyKycVerification: EVERY_ROLE,
  getAnyKycProfile: EVERY_ROLE,
  listStaff: EVERY_ROLE,
  getStaff: EVERY_ROLE,
  listStock: EVERY_ROLE,
  getStockSummary: EVERY_ROLE,
  listAuditEvents: EVERY_ROLE,
  changeOrderStatus: FULFILMENT,
  allocateNumbers: FULFILMENT,
  importStock: FULFILMENT,
  removeStockNumber: FULFILMENT,
  reviewKycVerification: COMPLIANCE,
  reviewKycProfile: COMPLIANCE,
  downloadAnyKycDocument: COMPLIANCE,
  setCatalogRequirements: COMPLIANCE,
  removeCatalogRequirements: COMPLIANCE,
  createCustomer: ADMIN,
  createApiKey: ADMIN,
  revokeApiKey: ADMIN,
  createUser: ADMIN,
  inviteUser: ADMIN,
  updateUser: ADMIN,
  addCatalogPair: ADMIN,
  removeCatalogPair: ADMIN,
  putStaff: ADMIN,
};

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

describe("the staff's roles", () => {
  it("are declared on every /admin operation as the hand-written matrix says (a HEAD as its GET)", () => {
    expect(operations.length).toBeGreaterThan(25);
    const declared = Object.fromEntries(operations.map((o) => [o.operationId, o.roles.toSorted()]));
    const expected = Object.fromEntries(
      operations.map((o) => {
        const get = o.method === "HEAD" ? operations.find((g) => g.method === "GET" && g.path === o.path) : o;
        return [o.operationId, (MATRIX[get?.operationId ?? ""] ?? []).toSorted()];
      }),
    );
    expect(declared).toEqual(expected);
    expect(Object.keys(MATRIX).filter((id) => !(id in declared))).toEqual([]);
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
});
