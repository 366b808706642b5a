// Who may call each operator operation (OPERATOR.md's matrix): every role reads everything; changes are fulfilment's
// (orders, allocation, stock), compliance's (reviews, documents' bytes, requirements) or admin's (accounts, keys,
// users, catalog, staff), and the admin may do all. One table, by operationId: the API's routes take their x-roles and
// role mark from it (operatorOperation), the console its forms and their guards (mayChange, changeGuard).
import type { MiddlewareHandler } from "hono";
import { STAFF_ROLES, type StaffRole } from "../db/schema.ts";
import type { Operator } from "../env.ts";
import { OPERATOR_SECURITY } from "../http/openapi.ts";
import { roleMark } from "./guard.ts";

const EVERY_ROLE: readonly StaffRole[] = STAFF_ROLES;
const FULFILMENT: readonly StaffRole[] = ["fulfilment", "admin"];
const COMPLIANCE: readonly StaffRole[] = ["compliance", "admin"];
const ADMIN: readonly StaffRole[] = ["admin"];

const OPERATION_ROLES = {
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
} as const satisfies Record<string, readonly StaffRole[]>;

/** An operator operation, by its operationId: what an /admin route is and what a console form runs. */
export type OperatorOperation = keyof typeof OPERATION_ROLES;

/**
 * What every operator operation declares: its operationId, tag and credentials, the roles that may call it (`x-roles`
 * in the description) and the route's role mark, from which the operator's guard refuses every other role (403)
 * before the rest of the audience (idempotency) runs, the input is validated or anything looked up; the operation's
 * own middleware, if any, runs after it.
 */
export function operatorOperation(operationId: OperatorOperation, ...middleware: MiddlewareHandler[]) {
  const roles = OPERATION_ROLES[operationId];
  return {
    tags: ["Admin"],
    security: OPERATOR_SECURITY,
    "x-roles": [...roles],
    operationId,
    middleware: [roleMark(roles), ...middleware],
  };
}

/** Whether the operator may run the operation: whether the console shows them its form. */
export function mayChange(operator: Pick<Operator, "role">, operation: OperatorOperation): boolean {
  return OPERATION_ROLES[operation].includes(operator.role);
}

/** A console route that runs the operation: the guard refuses every other role (403) before the form is read. */
export function changeGuard(operation: OperatorOperation) {
  return roleMark(OPERATION_ROLES[operation]);
}
