// Staff roles (OPERATOR.md). Each change is an OperatorAction in its feature's use-cases.ts naming its roles; API
// routes and console pages derive their role checks from it.
import type { MiddlewareHandler } from "hono";
import { STAFF_ROLES, type StaffRole } from "../db/schema.ts";
import type { Operator } from "../env.ts";
import { OPERATOR_SECURITY } from "../http/openapi.ts";
import { type Action, availableOn } from "../lib/action.ts";
import { type ElevatedFlag, roleMark } from "./guard.ts";

const EVERY_ROLE: readonly StaffRole[] = STAFF_ROLES;
export const FULFILMENT: readonly StaffRole[] = ["fulfilment", "admin"];
export const COMPLIANCE: readonly StaffRole[] = ["compliance", "admin"];
export const ADMIN: readonly StaffRole[] = ["admin"];

/** Who may run an operator operation: its operationId in the API description, and the roles allowed. */
export interface OperatorPermission {
  readonly operationId: string;
  readonly roles: readonly StaffRole[];
  readonly elevated?: ElevatedFlag | undefined;
}

/**
 * A change the operator makes, declared once with its rules: an action (src/lib/action.ts) with the /admin operation
 * that runs it (and the console's form) and the roles that may.
 */
export interface OperatorAction<Run extends (...args: never[]) => unknown, Target = never>
  extends OperatorPermission,
    Action<Run, Target> {}

/** Declares an operator action (its types kept as written). */
export function operatorAction<Run extends (...args: never[]) => unknown, Target = never>(
  action: OperatorAction<Run, Target>,
): OperatorAction<Run, Target> {
  return action;
}

/**
 * What every operator operation declares: its operationId, tag and credentials, the roles that may call it (`x-roles`
 * in the description) and the route's role mark, from which the operator's guard refuses every other role (403)
 * before the rest of the audience (idempotency) runs, the input is validated or anything looked up; the operation's
 * own middleware, if any, runs after it.
 */
export function operatorOperation(permission: OperatorPermission, ...middleware: MiddlewareHandler[]) {
  return {
    tags: ["Admin"],
    security: OPERATOR_SECURITY,
    "x-roles": [...permission.roles],
    ...(permission.elevated && {
      "x-elevated": { flag: permission.elevated.flag, roles: [...permission.elevated.roles] },
    }),
    operationId: permission.operationId,
    middleware: [roleMark(permission.roles, permission.elevated), ...middleware],
  };
}

/** A read of the operator's API: every role may. */
export function operatorRead(operationId: string, ...middleware: MiddlewareHandler[]) {
  return operatorOperation({ operationId, roles: EVERY_ROLE }, ...middleware);
}

/** Whether the operator may run the action: whether the console shows them its form. */
export function mayChange(operator: Pick<Operator, "role">, action: OperatorPermission): boolean {
  return action.roles.includes(operator.role);
}

/** Whether the operator may set the action's admin-only flag (force, ignore_quarantine): whether the console shows its box. */
export function mayRaise(operator: Pick<Operator, "role">, action: OperatorPermission): boolean {
  return mayChange(operator, action) && (action.elevated?.roles.includes(operator.role) ?? false);
}

/** Whether the console offers the action on this target now: the operator's role may, and the target allows it. */
export function offered<Run extends (...args: never[]) => unknown, Target>(
  operator: Pick<Operator, "role">,
  action: OperatorAction<Run, Target>,
  target: Target,
  now: number,
): boolean {
  return mayChange(operator, action) && availableOn(action, target, now);
}

/**
 * A console route that runs the action: the guard refuses every other role (403), and anyone but the flag's roles
 * who ticks its admin-only flag (a checkbox posting "true"), before the form is used.
 */
export function changeGuard(action: OperatorPermission) {
  return roleMark(action.roles, action.elevated);
}
