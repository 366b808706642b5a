// Who may use each of the console's forms, said once: every form is an operator API operation (named by its
// operationId) and takes that operation's roles, the groups of src/staff/roles.ts (OPERATOR.md's matrix). A page shows
// a form only to those roles (mayChange); the POST behind it refuses every other role (changeGuard) before anything
// is read. test/console-pages.test.ts holds this table against the API's x-roles and walks every form with every role.
import type { StaffRole } from "../db/schema.ts";
import type { Operator } from "../env.ts";
import { allowRoles } from "../staff/guard.ts";
import { ADMIN, COMPLIANCE, FULFILMENT } from "../staff/roles.ts";

export const CONSOLE_CHANGES = {
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
  addCatalogPair: ADMIN,
  removeCatalogPair: ADMIN,
  putStaff: ADMIN,
} as const satisfies Record<string, readonly StaffRole[]>;

export type ConsoleChange = keyof typeof CONSOLE_CHANGES;

/** Whether the operator may make this change: whether its form is shown to them. */
export function mayChange(operator: Pick<Operator, "role">, change: ConsoleChange): boolean {
  return (CONSOLE_CHANGES[change] as readonly StaffRole[]).includes(operator.role);
}

/** The route's guard of a change: 403 for every other role, before the form is read. */
export function changeGuard(change: ConsoleChange) {
  return allowRoles(CONSOLE_CHANGES[change]);
}
