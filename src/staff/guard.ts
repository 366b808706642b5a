// Who acts for the operator, on /admin and /ops: the ADMIN_TOKEN (automation; role admin) when an Authorization header
// is present, which alone then decides; else a staff member by their Cloudflare Access token (the Cf-Access-Jwt-Assertion
// header, which alone decides when present, else the CF_Authorization cookie), known and enabled in D1. A member this
// isolate has seen is checked with the request's first D1 call, as a known API key is (src/http/carried-check.ts).
// And each operation's roles, checked before its input is validated or anything is looked up.
import type { Context, MiddlewareHandler } from "hono";
import { getCookie } from "hono/cookie";
import type { StaffRole } from "../db/schema.ts";
import { READ_METHODS } from "../db/session.ts";
import type { Operator, OperatorEnv } from "../env.ts";
import { isAdminToken } from "../http/auth.ts";
import { authenticationFailure, refuseSpentAddress } from "../http/auth-failures.ts";
import { carriedAssertion, carriedRead, confirmedRequest } from "../http/carried-check.ts";
import { publicOrigin } from "../http/public-origin.ts";
import { Problem } from "../lib/problem.ts";
import { ACCESS_COOKIE, ACCESS_HEADER, accessIdentity } from "./access.ts";
import { enabledStaffAssertion, findStaff, staffStateQuery } from "./store.ts";

/** Staff members this isolate has seen (their role and name as read then), by e-mail, least recently used first. */
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
  if (c.req.header("Authorization") !== undefined || c.req.header("X-API-Key") !== undefined) {
    if (!(await isAdminToken(c))) throw await authenticationFailure(c);
    identify(c, TOKEN_OPERATOR);
    return next();
  }
  const token = accessToken(c);
  if (!token) throw await authenticationFailure(c);
  if (!READ_METHODS.has(c.req.method) && isCrossSite(c)) {
    throw forbidden("A change signed in with Cloudflare Access must come from this service's own pages");
  }
  const identity = await accessIdentity(token, c.env);
  if (!identity) throw await authenticationFailure(c);
  const { email } = identity;
  const known = knownStaff.get(email);
  if (!known) {
    const member = await findStaff(c.var.db, email);
    if (member?.status !== "enabled") throw forbidden(`${email} is not an enabled member of the operator's staff`);
    rememberStaff(email, { role: member.role, name: member.name });
    identify(c, { actor: { type: "staff", email }, role: member.role, name: member.name, accessToken: token });
    return next();
  }
  rememberStaff(email, known);
  identify(c, { actor: { type: "staff", email }, ...known, accessToken: token });
  // Still enabled, with the role the operation was allowed by: read with a read, asserted in front of a write.
  const check = READ_METHODS.has(c.req.method)
    ? carriedRead(c, staffStateQuery(c.var.db, email), ([row]) => row?.[0] === known.role && row?.[1] === "enabled")
    : carriedAssertion(c, enabledStaffAssertion(c.var.db, email, known.role));
  return confirmedRequest(c, check, next, async () => {
    knownStaff.delete(email);
    return forbidden(`${email} is no longer an enabled member with the role ${known.role}; if the role changed, try again`);
  });
};

function identify(c: Context<OperatorEnv>, operator: Operator): void {
  c.set("operator", operator);
  c.set("actor", operator.actor);
}

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
