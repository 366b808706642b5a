// Role names for console pages, derived from mayChange so no page lists roles by hand.
import { STAFF_ROLES, type StaffRole } from "../db/schema.ts";
import { capitalised } from "../lib/words.ts";
import { mayChange, type OperatorPermission } from "../staff/roles.ts";

const AND = new Intl.ListFormat("en", { type: "conjunction" });

/** A role as the console writes it: "Compliance". */
export const roleName = (role: StaffRole) => capitalised(role);

/** The roles that may make `change`, as a phrase: "the Compliance and Admin roles". */
export function rolesThatMay(change: OperatorPermission): string {
  const roles = STAFF_ROLES.filter((role) => mayChange({ role }, change));
  return `the ${AND.format(roles.map(roleName))} role${roles.length === 1 ? "" : "s"}`;
}
