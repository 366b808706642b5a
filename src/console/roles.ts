// What a console page shows a staff member: a form only to the roles that may use it (OPERATOR.md's matrix, the roles
// of src/staff/roles.ts); the POST behind it refuses every other role (allowRoles).
import type { StaffRole } from "../db/schema.ts";
import type { Operator } from "../env.ts";

/** Whether the operator may change what these roles may. */
export function mayChange(operator: Pick<Operator, "role">, roles: readonly StaffRole[]): boolean {
  return roles.includes(operator.role);
}
