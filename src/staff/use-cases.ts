// Staff actions. Nobody is deleted, so the audit log keeps its actors, and an enabled admin always remains.
import type { StaffRow } from "../db/schema.ts";
import type { Work } from "../env.ts";
import { done, Problem, type Result, refusals, refused } from "../lib/problem.ts";
import { ADMIN, operatorAction } from "./roles.ts";
import { putStaff, type StaffSettings } from "./store.ts";

const LAST_ADMIN = "The last enabled admin cannot be demoted or disabled: make someone else an admin first";

const SET_STAFF_REFUSALS = refusals("conflict");

/** Creates or changes a staff member; `created` tells which. */
async function setStaff(
  work: Work,
  email: string,
  settings: StaffSettings,
): Promise<Result<{ row: StaffRow; created: boolean }, typeof SET_STAFF_REFUSALS>> {
  const put = await putStaff(work.db, work, email, settings, work.now);
  return put.ok ? done(put.value) : refused(new Problem("conflict", LAST_ADMIN));
}

export const setStaffAction = operatorAction({
  operationId: "putStaff",
  roles: ADMIN,
  refusals: SET_STAFF_REFUSALS,
  run: setStaff,
});
