// Passes a result from a form's POST to the page it redirects to (303), shown once. Sealed in a short-lived cookie, so
// a reload neither repeats the action nor shows the result again and nothing appears in a URL. The key derives from a
// secret only the visitor holds (portal session id, console Access token), so the cookie is useless to anyone else.
import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { seal, sealingKey, unseal } from "../lib/sealing.ts";

/** Where a result waits: the landing page's cookie (one per page that shows results), and the visitor's secret. */
export interface RedirectNote {
  cookie: string;
  secret: string;
}

/** Long enough for the redirect that follows; a result not shown by then is gone. */
const MAX_AGE_SECONDS = 60;
/** A cookie's name, value and attributes must stay within the 4,096 bytes every browser keeps. */
const MAX_COOKIE_VALUE = 3_800;

function keyOf(note: RedirectNote): Promise<CryptoKey> {
  return sealingKey(note.secret, "after-redirect", note.cookie);
}

/**
 * Seals `value` into the cookie the next page reads (the caller then redirects). A value too large for a cookie is
 * `shorten`ed (its lists cut, its counts kept) until it fits; one that cannot be is a fault of the caller.
 */
export async function leaveAfterRedirect<T>(
  c: Context,
  note: RedirectNote,
  value: T,
  shorten?: (value: T) => T | undefined,
): Promise<void> {
  const key = await keyOf(note);
  for (let current: T | undefined = value; current !== undefined; current = shorten?.(current)) {
    const sealed = await seal(JSON.stringify(current), key);
    // The cookie carries the value URL-encoded.
    if (encodeURIComponent(sealed).length <= MAX_COOKIE_VALUE) {
      setCookie(c, note.cookie, sealed, { prefix: "host", httpOnly: true, sameSite: "Strict", maxAge: MAX_AGE_SECONDS });
      return;
    }
  }
  throw new Error(`what ${note.cookie} was to show after the redirect does not fit a cookie`);
}

/** What the last POST left for this page to show, once: the cookie is dropped with this answer. */
export async function takeAfterRedirect<T>(c: Context, note: RedirectNote): Promise<T | undefined> {
  const sealed = getCookie(c, note.cookie, "host");
  if (sealed === undefined) return undefined;
  deleteCookie(c, note.cookie, { prefix: "host", secure: true, path: "/" });
  try {
    return JSON.parse(await unseal(sealed, await keyOf(note))) as T;
  } catch {
    // Sealed for another visitor, or changed: nothing to show.
    return undefined;
  }
}
