// What each staff role may do (OPERATOR.md's matrix): every role reads everything; changes are fulfilment's
// (orders, allocation, stock), compliance's (reviews, documents' bytes) or admin's (accounts, keys, users, catalog,
// staff), and the admin may do all. Each operator operation declares its roles once, here, for both the guard and
// the API description.
import type { MiddlewareHandler } from "hono";
import { STAFF_ROLES, type StaffRole } from "../db/schema.ts";
import { OPERATOR_SECURITY } from "../http/openapi.ts";
import { allowRoles } from "./guard.ts";

export const EVERY_ROLE: readonly StaffRole[] = STAFF_ROLES;
export const FULFILMENT: readonly StaffRole[] = ["fulfilment", "admin"];
export const COMPLIANCE: readonly StaffRole[] = ["compliance", "admin"];
export const ADMIN: readonly StaffRole[] = ["admin"];

/**
 * What every operator operation declares: its tag, its credentials, the roles that may call it (`x-roles` in the
 * description), and allowRoles, whose roles the operator's guard reads to refuse every other role (403) before the
 * rest of the audience (idempotency) runs, the input is validated or anything looked up; the operation's own
 * middleware, if any, runs after it.
 */
export function operatorOperation(roles: readonly StaffRole[], ...middleware: MiddlewareHandler[]) {
  return {
    tags: ["Admin"],
    security: OPERATOR_SECURITY,
    "x-roles": [...roles],
    middleware: [allowRoles(roles), ...middleware],
  };
}
