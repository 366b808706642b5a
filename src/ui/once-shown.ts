// A result shown once after a redirect (a new API key, a signing secret, an invitation link, an import's report): the
// form's POST seals it into a short-lived cookie of the page it redirects to, and that page shows it and drops the
// cookie. So a reload neither repeats the change nor shows the result again, and the result is never in a URL. The
// seal's key is derived from the session's secret, which only the person's browser holds (the portal's session id,
// the console's Access token): the cookie is useless to any other session.
import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { seal, sealingKey, unseal } from "../lib/sealing.ts";

/** Long enough for the redirect that follows; a result not shown by then is gone. */
const MAX_AGE_SECONDS = 60;

/**
 * The most bytes of JSON a cookie carries: a browser keeps a cookie's name and value up to 4,096 bytes, and the seal
 * (IV and tag, then base64) makes 4 bytes of every 3, and 38 more: 3,904 at most, and the name.
 */
const MAX_JSON_BYTES = 2900;

/**
 * The seal as a cookie's value, in URL-safe base64 without padding: the value is percent-encoded, where +, / and =
 * would take three bytes each, and its size would depend on the bytes sealed; and back (atob needs no padding).
 */
const cookieValue = (sealed: string) => sealed.replaceAll("+", "-").replaceAll("/", "_").replaceAll("=", "");
const sealedValue = (value: string) => value.replaceAll("-", "+").replaceAll("_", "/");

const encoder = new TextEncoder();

/** Whose result it is: the set of pages (each derives its own keys) and the session's secret. */
export interface OnceShownSession {
  pages: "portal" | "console";
  secret: string;
}

function keyOf(session: OnceShownSession): Promise<CryptoKey> {
  return sealingKey(session.secret, session.pages, "once-shown-secret");
}

/** Whether `value` fits the cookie that carries it to the next page. */
export function fitsOnceShown(value: unknown): boolean {
  return encoder.encode(JSON.stringify(value)).byteLength <= MAX_JSON_BYTES;
}

/** Seals `value` into the cookie `name` the next page reads (the caller then redirects); it must fit (fitsOnceShown). */
export async function showOnceAfterRedirect(c: Context, name: string, session: OnceShownSession, value: unknown): Promise<void> {
  if (!fitsOnceShown(value)) throw new Error(`a result shown once must fit a cookie (${MAX_JSON_BYTES} bytes of JSON)`);
  const sealed = await seal(JSON.stringify(value), await keyOf(session));
  setCookie(c, name, cookieValue(sealed), { prefix: "host", httpOnly: true, sameSite: "Strict", maxAge: MAX_AGE_SECONDS });
}

/** What the last POST left in the cookie `name` for this page to show, once: the cookie is dropped with this answer. */
export async function takeShownOnce<T>(c: Context, name: string, session: OnceShownSession | undefined): Promise<T | undefined> {
  const value = getCookie(c, name, "host");
  if (value === undefined) return undefined;
  deleteCookie(c, name, { prefix: "host", secure: true, path: "/" });
  if (session === undefined) return undefined;
  try {
    return JSON.parse(await unseal(sealedValue(value), await keyOf(session)));
  } catch {
    // Sealed for another session, or changed: nothing to show.
    return undefined;
  }
}
