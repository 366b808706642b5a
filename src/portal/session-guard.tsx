// The portal's guard: the session cookie (`__Host-vn_session`: HttpOnly, Secure, SameSite=Lax, Path=/) and, on
// state-changing requests, the session's CSRF token (src/ui/form-guard.tsx). The Origin check runs first, on every
// path.
import type { Context, MiddlewareHandler } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import type { PortalEnv } from "../env.ts";
import { csrfTokenFor, refusedForm } from "../ui/form-guard.tsx";
import { findSession, SESSION_MAX_MS, SIGN_IN_CHOICE_TTL_MS } from "../users/sessions.ts";

const SESSION_COOKIE = "vn_session";
/** The ticket of a sign-in whose password opened several accounts, until one is chosen. */
const SIGN_IN_CHOICE_COOKIE = "vn_sign_in";
export const SIGN_IN_PATH = "/portal/sign-in";
export const CHOOSE_ACCOUNT_PATH = "/portal/sign-in/account";

export function setSessionCookie(c: Context, token: string): void {
  setCookie(c, SESSION_COOKIE, token, { prefix: "host", httpOnly: true, sameSite: "Lax", maxAge: SESSION_MAX_MS / 1000 });
}

export function clearSessionCookie(c: Context): void {
  deleteCookie(c, SESSION_COOKIE, { prefix: "host", secure: true, path: "/" });
}

export function sessionCookie(c: Context): string | undefined {
  return getCookie(c, SESSION_COOKIE, "host");
}

export function setSignInChoiceCookie(c: Context, ticket: string): void {
  setCookie(c, SIGN_IN_CHOICE_COOKIE, ticket, {
    prefix: "host",
    httpOnly: true,
    sameSite: "Lax",
    maxAge: SIGN_IN_CHOICE_TTL_MS / 1000,
  });
}

export function clearSignInChoiceCookie(c: Context): void {
  deleteCookie(c, SIGN_IN_CHOICE_COOKIE, { prefix: "host", secure: true, path: "/" });
}

export function signInChoiceCookie(c: Context): string | undefined {
  return getCookie(c, SIGN_IN_CHOICE_COOKIE, "host");
}

/**
 * A page of a session: without a live session (or for a user no longer active) a GET goes to sign-in, anything else
 * is refused. A POST must carry the session's CSRF token.
 */
export const requireSession: MiddlewareHandler<PortalEnv> = async (c, next) => {
  const token = sessionCookie(c);
  const found = token === undefined ? undefined : await findSession(c.var.db, token, c.var.now);
  if (!found || token === undefined) {
    if (c.req.method === "GET" || c.req.method === "HEAD") {
      const back = new URL(c.req.url);
      return c.redirect(`${SIGN_IN_PATH}?next=${encodeURIComponent(back.pathname + back.search)}`, 303);
    }
    return c.redirect(SIGN_IN_PATH, 303);
  }
  const csrfToken = await csrfTokenFor(token);
  const expired = await refusedForm(c, csrfToken);
  if (expired) return expired;
  c.set("visitor", { user: found.user, customer: found.customer, csrfToken });
  c.set("actor", { type: "user", id: found.user.id, email: found.user.email });
  c.var.log.customerId = found.customer.id;
  await next();
};

/** A portal path of this site in printable ASCII, nothing that could leave the site or break a Location header. */
const PORTAL_PATH = /^\/portal\/[\x21-\x5b\x5d-\x7e]*$/;

/** Where a signed-in visitor goes: the asked page when it is a portal path of this site, else the orders. */
export function landingPath(next: string | undefined): string {
  return next !== undefined && PORTAL_PATH.test(next) ? next : "/portal/orders";
}
