// OPERATOR.md's matrix of the staff's roles, written by hand (not read from the code): what the roles' table in
// src/staff/roles.ts is held against, by the /admin walk (test/roles.test.ts) and the console's
// (test/console-pages.test.ts).
import type { StaffRole } from "../src/db/schema.ts";

export const EVERY_ROLE: readonly StaffRole[] = ["viewer", "fulfilment", "compliance", "admin"];
const FULFILMENT: readonly StaffRole[] = ["fulfilment", "admin"];
const COMPLIANCE: readonly StaffRole[] = ["compliance", "admin"];
const ADMIN: readonly StaffRole[] = ["admin"];
const NUMBER_STAFF: readonly StaffRole[] = ["fulfilment", "compliance", "admin"];

/**
 * OPERATOR.md: every role reads the queues, orders, accounts, catalog, requirements, stock and the audit log; order
 * status moves, allocation, stock import and removal are fulfilment's; reviews and documents' bytes compliance's;
 * customers, API keys, customer users and invitations, catalog pairs and staff the admin's; the admin may do all.
 * By operationId.
 */
export const ROLE_MATRIX: Readonly<Record<string, readonly StaffRole[]>> = {
  listCustomers: EVERY_ROLE,
  getCustomer: EVERY_ROLE,
  listApiKeys: EVERY_ROLE,
  getApiKey: EVERY_ROLE,
  listCatalog: EVERY_ROLE,
  listOrderQueue: EVERY_ROLE,
  getAnyOrder: EVERY_ROLE,
  listAllNumbers: EVERY_ROLE,
  getAnyNumber: EVERY_ROLE,
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
  suspendNumbers: NUMBER_STAFF,
  resumeNumbers: NUMBER_STAFF,
  releaseNumbersByOperator: NUMBER_STAFF,
  restoreNumbersByOperator: NUMBER_STAFF,
};

/**
 * LIFECYCLE.md's admin-only flags: `force` on the operator's release, `ignore_quarantine` on an allocation. By
 * operationId; each operation is also in ROLE_MATRIX.
 */
export const ELEVATED_MATRIX: Readonly<Record<string, { flag: string; roles: readonly StaffRole[] }>> = {
  allocateNumbers: { flag: "ignore_quarantine", roles: ADMIN },
  releaseNumbersByOperator: { flag: "force", roles: ADMIN },
};
