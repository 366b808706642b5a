// A secret shown once after a redirect (a new API key, a webhook signing secret, an invitation link): the form's POST
// seals it into a short-lived cookie of the page it redirects to, and that page shows it and drops the cookie. So a
// reload neither creates a second key nor shows the first again, and the secret is never in a URL. The seal's key is
// derived from the session's id, which only the session cookie holds: the cookie is useless to any other session.
import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { seal, sealingKey, unseal } from "../lib/sealing.ts";
import type { Section } from "./frame.tsx";
import { sessionCookie } from "./session-guard.tsx";

/** One cookie per page that shows secrets: a secret waits only for the page its form leads to. */
const cookieOf = (section: Section) => `vn_once_${section}`;
/** Long enough for the redirect that follows; a secret not shown by then is gone. */
const MAX_AGE_SECONDS = 60;

/** What the landing page shows: the secret with its label, and what happened. */
export interface OnceShown {
  label: string;
  secret: string;
  notice: string;
}

function keyOf(session: string): Promise<CryptoKey> {
  return sealingKey(session, "portal", "once-shown-secret");
}

/** Seals `shown` into the cookie the next page reads (the caller then redirects). */
export async function showOnceAfterRedirect(c: Context, section: Section, shown: OnceShown): Promise<void> {
  const session = sessionCookie(c);
  if (session === undefined) throw new Error("a secret is shown once only within a session");
  const sealed = await seal(JSON.stringify(shown), await keyOf(session));
  setCookie(c, cookieOf(section), sealed, { prefix: "host", httpOnly: true, sameSite: "Strict", maxAge: MAX_AGE_SECONDS });
}

/** The secret the last POST left for this page to show, once: the cookie is dropped with this answer. */
export async function takeShownOnce(c: Context, section: Section): Promise<OnceShown | undefined> {
  const sealed = getCookie(c, cookieOf(section), "host");
  if (sealed === undefined) return undefined;
  deleteCookie(c, cookieOf(section), { prefix: "host", secure: true, path: "/" });
  const session = sessionCookie(c);
  if (session === undefined) return undefined;
  try {
    return JSON.parse(await unseal(sealed, await keyOf(session)));
  } catch {
    // Sealed for another session, or changed: nothing to show.
    return undefined;
  }
}
