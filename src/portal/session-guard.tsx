// The portal's guard: the session cookie (`__Host-vn_session`: HttpOnly, Secure, SameSite=Lax, Path=/), and on every
// state-changing request the Origin check (hono/csrf) and the session's CSRF token, read from the form the handler
// reads too.
import type { Context, MiddlewareHandler } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { csrf } from "hono/csrf";
import type { PortalEnv } from "../env.ts";
import { firstFormPart, routeReadsOwnMultipart } from "../http/multipart.ts";
import { isMultipart, requestBody } from "../http/request-body.ts";
import { toBase64Url } from "../lib/base64.ts";
import { decodeUtf8 } from "../lib/content.ts";
import { CSRF_FIELD } from "../ui/components.tsx";
import { renderDocument } from "../ui/document.tsx";
import { readForm } from "../ui/forms.tsx";
import { findSession, SESSION_MAX_MS, SIGN_IN_CHOICE_TTL_MS } from "../users/sessions.ts";

const SESSION_COOKIE = "vn_session";
/** The ticket of a sign-in whose password opened several accounts, until one is chosen. */
const SIGN_IN_CHOICE_COOKIE = "vn_sign_in";
export const SIGN_IN_PATH = "/portal/sign-in";
export const CHOOSE_ACCOUNT_PATH = "/portal/sign-in/account";
const encoder = new TextEncoder();

/** Cross-site form posts are refused: a request passes with `Sec-Fetch-Site: same-origin` or an Origin of this host. */
export const sameOriginForms = csrf();

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
 * The session's CSRF token: an HMAC of "csrf" keyed with the session id, which only the cookie holds (D1 has its hash),
 * so nothing stored reveals it, and it changes with every session.
 */
async function csrfTokenFor(sessionToken: string): Promise<string> {
  const key = await crypto.subtle.importKey("raw", encoder.encode(sessionToken), { name: "HMAC", hash: "SHA-256" }, false, [
    "sign",
  ]);
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, encoder.encode("csrf")));
  return toBase64Url(mac);
}

/** The text of a multipart form's first part when it is the field `name`, read without the parts after it. */
async function firstFieldNamed(request: Request, name: string): Promise<string | undefined> {
  const part = await firstFormPart(request);
  return part?.name === name && part.filename === undefined ? decodeUtf8(part.data) : undefined;
}

function sameToken(a: string, b: string): boolean {
  const x = encoder.encode(a);
  const y = encoder.encode(b);
  return x.byteLength === y.byteLength && crypto.subtle.timingSafeEqual(x, y);
}

/**
 * A page of a session: without a live session (or for a user no longer active) a GET goes to sign-in, anything else
 * is refused. A POST must carry the session's CSRF token.
 */
export const requireSession: MiddlewareHandler<PortalEnv> = async (c, next) => {
  const token = sessionCookie(c);
  const found = token === undefined ? undefined : await findSession(c.var.db, token, Date.now());
  if (!found || token === undefined) {
    if (c.req.method === "GET" || c.req.method === "HEAD") {
      const back = new URL(c.req.url);
      return c.redirect(`${SIGN_IN_PATH}?next=${encodeURIComponent(back.pathname + back.search)}`, 303);
    }
    return c.redirect(SIGN_IN_PATH, 303);
  }
  const csrfToken = await csrfTokenFor(token);
  if (c.req.method !== "GET" && c.req.method !== "HEAD") {
    // An upload's form carries it as its first part, and only that part is read here: the file is read only once
    // the token and the upload's own checks passed (a full or locked verification is refused unread, as the API
    // refuses it). Never in a URL, which platform logs keep.
    const sent = isMultipart(c.req.raw) ? await firstFieldNamed(c.req.raw, CSRF_FIELD) : (await readForm(c)).token;
    if (sent === undefined || !sameToken(sent, csrfToken)) {
      return renderDocument(
        c,
        "Form expired",
        <div class="card narrow">
          <h1>This form has expired</h1>
          <p>Nothing was done. Go back, reload the page and try again.</p>
        </div>,
        403,
      );
    }
  }
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

/**
 * A form's body read in bounded work (at most 64 KiB: src/http/request-body.ts) and refused unless it is UTF-8. A
 * multipart body goes only to a route that reads its own (the upload, readsOwnMultipartBody), with its own bounded
 * parser; to any other form it is refused (415), unread. Hono's parseBody then reads these bytes.
 */
export const boundedFormBody: MiddlewareHandler = async (c, next) => {
  if (c.req.raw.body && isMultipart(c.req.raw)) {
    if (routeReadsOwnMultipart(c)) return next();
    return renderDocument(
      c,
      "Not sent",
      <p class="card narrow">This form cannot be sent as multipart/form-data: nothing was done.</p>,
      415,
    );
  }
  if (c.req.raw.body) {
    const bytes = await requestBody(c.req.raw);
    if (decodeUtf8(bytes) === undefined) {
      return renderDocument(
        c,
        "Not sent",
        <p class="card narrow">This form's text is not valid UTF-8: nothing was done.</p>,
        400,
      );
    }
    // Its cache holds promises, though its type says otherwise.
    c.req.bodyCache.arrayBuffer = Promise.resolve(bytes.slice().buffer) as unknown as ArrayBuffer;
  }
  await next();
};
