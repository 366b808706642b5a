// Who acts for the operator, on /admin and /ops: the ADMIN_TOKEN (automation; role admin) when an Authorization header
// is present, which alone then decides; else a staff member by their Cloudflare Access token (the Cf-Access-Jwt-Assertion
// header, which alone decides when present, else the CF_Authorization cookie), known and enabled in D1. And each
// operation's roles, checked before its input is validated or anything is looked up.
import type { Context, MiddlewareHandler } from "hono";
import { getCookie } from "hono/cookie";
import type { StaffRole } from "../db/schema.ts";
import type { Operator, OperatorEnv } from "../env.ts";
import { isAdminToken } from "../http/auth.ts";
import { authenticationFailure, refuseSpentAddress } from "../http/auth-failures.ts";
import { publicOrigin } from "../http/public-origin.ts";
import { Problem } from "../lib/problem.ts";
import { ACCESS_COOKIE, ACCESS_HEADER, accessIdentity } from "./access.ts";
import { findStaff } from "./store.ts";

const SAFE_METHODS: ReadonlySet<string> = new Set(["GET", "HEAD"]);

/** The token's operator: automation, with every right. */
const TOKEN_OPERATOR: Operator = { actor: { type: "token" }, role: "admin", name: "ADMIN_TOKEN" };

export function forbidden(detail: string): Problem {
  return new Problem("forbidden", detail);
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
 * Names who acts (c.var.operator, c.var.actor), or refuses: 401 for a missing or invalid credential (one answer for
 * every reason, counted against the client's address, and before any D1 read), 403 for a cross-site change, and for a
 * verified e-mail that is no enabled staff member.
 */
export const requireOperator: MiddlewareHandler<OperatorEnv> = async (c, next) => {
  refuseSpentAddress(c);
  let operator: Operator;
  if (c.req.header("Authorization") !== undefined || c.req.header("X-API-Key") !== undefined) {
    if (!(await isAdminToken(c))) throw await authenticationFailure(c);
    operator = TOKEN_OPERATOR;
  } else {
    const token = accessToken(c);
    if (!token) throw await authenticationFailure(c);
    if (!SAFE_METHODS.has(c.req.method) && isCrossSite(c)) {
      throw forbidden("A change signed in with Cloudflare Access must come from this service's own pages");
    }
    const identity = await accessIdentity(token, c.env);
    if (!identity) throw await authenticationFailure(c);
    const { email } = identity;
    const member = await findStaff(c.var.db, email);
    if (member?.status !== "enabled") throw forbidden(`${email} is not an enabled member of the operator's staff`);
    operator = { actor: { type: "staff", email: member.email }, role: member.role, name: member.name, accessToken: token };
  }
  c.set("operator", operator);
  c.set("actor", operator.actor);
  await next();
};

/** Refuses every role but these with 403, before the operation validates its input or looks anything up. */
export function allowRoles(roles: readonly StaffRole[]): MiddlewareHandler<OperatorEnv> {
  return async (c, next) => {
    const { role } = c.var.operator;
    if (!roles.includes(role)) {
      throw forbidden(`This needs the role ${roles.join(" or ")}; yours is ${role}`);
    }
    await next();
  };
}
