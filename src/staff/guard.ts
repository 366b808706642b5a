// The operator's guard on /admin and /ops: the ADMIN_TOKEN when an Authorization header is present, else an enabled
// staff member by Cloudflare Access token. Each operation's roles are checked here before anything else runs, an
// idempotent replay included. On /admin a known member with an allowed role is re-checked with the first D1 call
// (src/http/carried-check.ts); anyone else is read first, so a raised role takes effect at once.
import type { Context, MiddlewareHandler } from "hono";
import { getCookie } from "hono/cookie";
import { matchedRoutes } from "hono/route";
import { STAFF_ROLES, type StaffRole, type StaffStatus } from "../db/schema.ts";
import { READ_METHODS } from "../db/session.ts";
import type { Operator, OperatorEnv } from "../env.ts";
import { isAdminToken } from "../http/auth.ts";
import { authenticationFailure, refuseSpentAddress } from "../http/auth-failures.ts";
import { carriedAssertion, carriedRead, confirmedRequest } from "../http/carried-check.ts";
import { publicOrigin } from "../http/public-origin.ts";
import { Problem } from "../lib/problem.ts";
import { ACCESS_COOKIE, ACCESS_HEADER, AccessKeysUnavailable, accessIdentity } from "./access.ts";
import { enabledStaffAssertion, findStaff, staffStateQuery } from "./store.ts";

/** Staff members this isolate has seen (their role and name as last read), by e-mail, least recently used first. */
const knownStaff = new Map<string, Pick<Operator, "role" | "name">>();
const KNOWN_STAFF_CAPACITY = 1_000;

function rememberStaff(email: string, known: Pick<Operator, "role" | "name">): void {
  knownStaff.delete(email);
  knownStaff.set(email, known);
  if (knownStaff.size > KNOWN_STAFF_CAPACITY) knownStaff.delete(knownStaff.keys().next().value!);
}

/** The token's operator: automation, with every right. */
const TOKEN_OPERATOR: Operator = { actor: { type: "token" }, role: "admin", name: "ADMIN_TOKEN" };

function forbidden(detail: string): Problem {
  return new Problem("forbidden", detail);
}

function notEnabled(email: string): Problem {
  return forbidden(`${email} is not an enabled member of the operator's staff`);
}

/** The roles a request needs, and the admin-only flag it sets that narrowed them, if it did. */
interface Needed {
  roles: readonly StaffRole[];
  flag?: string | undefined;
}

function roleRefusal({ roles, flag }: Needed, role: StaffRole): Problem {
  const what = flag === undefined ? "This" : `Setting ${flag}`;
  return forbidden(`${what} needs the role ${roles.join(" or ")}; yours is ${role}`);
}

/**
 * A browser sends Access's cookie (and the header Access adds) with a cross-site request too: a change is refused
 * when the browser says it comes from another site, or its Origin is not this service's.
 */
function isCrossSite(c: Context): boolean {
  if (c.req.header("Sec-Fetch-Site")?.toLowerCase() === "cross-site") return true;
  const origin = c.req.header("Origin");
  return origin !== undefined && origin !== publicOrigin(c) && origin !== new URL(c.req.url).origin;
}

/** The Access token a request carries: the header when present (even empty: it alone decides), else the cookie. */
function accessToken(c: Context): string | undefined {
  const header = c.req.header(ACCESS_HEADER);
  return header !== undefined ? header.trim() : getCookie(c, ACCESS_COOKIE);
}

/**
 * A boolean of an operation's body that only some of its roles may set (`force`, `ignore_quarantine`: admin only). The
 * guard reads it before idempotency and refuses anyone else who sets it (403), as it refuses a role.
 */
export interface ElevatedFlag {
  readonly flag: string;
  readonly roles: readonly StaffRole[];
}

/** A route's role mark: the roles its operation allows, for the guard to read before anything runs. */
type RoleMark = MiddlewareHandler<OperatorEnv> & {
  allowedRoles: readonly StaffRole[];
  elevated: ElevatedFlag | undefined;
};

/**
 * Whether the request sets the flag: `true` in a JSON body (read and checked by strictJsonBody before this guard), or
 * "true" as any value of the field in a console form (every value: a page takes the first, so any one may set it; the
 * API's description is built in Node, which cannot import the pages' reader, src/ui/forms.tsx). A body that cannot be parsed sets nothing: the route's validator refuses it.
 */
async function raisesFlag(c: Context, flag: string): Promise<boolean> {
  if (READ_METHODS.has(c.req.method)) return false;
  const type = c.req.header("Content-Type")?.split(";")[0]?.trim().toLowerCase();
  if (type === "application/x-www-form-urlencoded") {
    return [(await c.req.parseBody({ all: true }))[flag]].flat().includes("true");
  }
  if (c.req.bodyCache.text === undefined) return false;
  try {
    const body: unknown = await c.req.json();
    return typeof body === "object" && body !== null && (body as Record<string, unknown>)[flag] === true;
  } catch {
    return false;
  }
}

/**
 * The roles the running route allows this request: its operation's, or its admin-only flag's when the request sets
 * it. Hono runs the first route that matches, so its mark is the first one matched (test/roles.test.ts holds that no
 * other route of its method can match a role-marked route's path). Every role where none is declared: what every
 * member may read.
 */
async function operationRoles(c: Context): Promise<Needed> {
  for (const { handler } of matchedRoutes(c)) {
    const { allowedRoles, elevated } = handler as Partial<RoleMark>;
    if (!allowedRoles) continue;
    if (elevated && (await raisesFlag(c, elevated.flag))) {
      return { roles: allowedRoles.filter((role) => elevated.roles.includes(role)), flag: elevated.flag };
    }
    return { roles: allowedRoles };
  }
  return { roles: STAFF_ROLES };
}

function identify(c: Context<OperatorEnv>, operator: Operator): void {
  c.set("operator", operator);
  c.set("actor", operator.actor);
}

/**
 * Names who acts (c.var.operator, c.var.actor), or refuses: 401 for a missing or invalid credential (one answer for
 * every reason, counted against the client's address, and before any D1 read), 503 while Access's keys cannot be read
 * (counted too), 403 for a cross-site change, for a verified e-mail that is no enabled staff member, and for a role the
 * operation does not allow. `remembers`: whether a member this isolate has seen is checked with the request's first D1
 * call (the API, whose answers do not depend on the role) rather than read before anything (the console, whose pages
 * show what the role may do).
 */
function operatorGuard(remembers: boolean): MiddlewareHandler<OperatorEnv> {
  return async (c, next) => {
    refuseSpentAddress(c);
    const needed = await operationRoles(c);
    const { roles } = needed;
    if (c.req.header("Authorization") !== undefined || c.req.header("X-API-Key") !== undefined) {
      if (!(await isAdminToken(c))) throw await authenticationFailure(c);
      identify(c, TOKEN_OPERATOR);
      if (!roles.includes(TOKEN_OPERATOR.role)) throw roleRefusal(needed, TOKEN_OPERATOR.role);
      return next();
    }
    const token = accessToken(c);
    if (!token) throw await authenticationFailure(c);
    if (!READ_METHODS.has(c.req.method) && isCrossSite(c)) {
      throw forbidden("A change signed in with Cloudflare Access must come from this service's own pages");
    }
    const identity = await accessIdentity(token, c.env, c.var.now);
    if (identity instanceof AccessKeysUnavailable) throw await authenticationFailure(c, identity.problem());
    if (!identity) throw await authenticationFailure(c);
    const { email } = identity;
    const known = remembers ? knownStaff.get(email) : undefined;
    if (!known || !roles.includes(known.role)) {
      // Not known, or known with a role the operation does not allow, which may have been raised since: read now.
      const member = await findStaff(c.var.db, email);
      if (member?.status !== "enabled") {
        knownStaff.delete(email);
        throw notEnabled(email);
      }
      if (remembers) rememberStaff(email, { role: member.role, name: member.name });
      identify(c, { actor: { type: "staff", email }, role: member.role, name: member.name, accessToken: token });
      if (!roles.includes(member.role)) throw roleRefusal(needed, member.role);
      return next();
    }
    rememberStaff(email, known);
    identify(c, { actor: { type: "staff", email }, ...known, accessToken: token });
    // Still enabled, with a role the operation allows: read with a read (the role read is remembered, so a change of
    // role the operation allows either way shows from the next request), asserted in front of a write.
    let seen: { role: StaffRole; status: StaffStatus } | undefined;
    const check = READ_METHODS.has(c.req.method)
      ? carriedRead(c, staffStateQuery(c.var.db, email), ([row]) => {
          if (!row) return false;
          seen = { role: row[0] as StaffRole, status: row[1] as StaffStatus };
          if (seen.status === "enabled") rememberStaff(email, { ...known, role: seen.role });
          return seen.status === "enabled" && roles.includes(seen.role);
        })
      : carriedAssertion(c, enabledStaffAssertion(c.var.db, email, roles));
    return confirmedRequest(c, check, next, async () => {
      if (seen?.status === "enabled") return roleRefusal(needed, seen.role);
      knownStaff.delete(email);
      if (seen) return notEnabled(email);
      return forbidden(`${email} is no longer an enabled member of the operator's staff with the role ${roles.join(" or ")}`);
    });
  };
}

/** The operator's API (/admin): a member this isolate has seen is checked with the request's first D1 call. */
export const requireOperator = operatorGuard(true);

/** The console's pages (/ops) show what the member's role may do: the member is read before each page. */
export const requireConsoleOperator = operatorGuard(false);

/**
 * Marks a route with the roles its operation allows. The operator's guard reads the mark and refuses every other role
 * before anything else runs; the mark itself lets every request through, so the rule is checked in one place.
 */
export function roleMark(roles: readonly StaffRole[], elevated?: ElevatedFlag): RoleMark {
  const mark: MiddlewareHandler<OperatorEnv> = (_c, next) => next();
  return Object.assign(mark, { allowedRoles: roles, elevated });
}

/** The roles a route's handler marks, if it is a role mark. */
export function markedRoles(handler: unknown): readonly StaffRole[] | undefined {
  return (handler as Partial<RoleMark>).allowedRoles;
}
