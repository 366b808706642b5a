// A secret shown once after a redirect (a new API key, a webhook signing secret, an invitation link), by the UI kit's
// once-shown cookie (src/ui/once-shown.ts) keyed to the portal's session: one cookie per page that shows secrets, so a
// secret waits only for the page its form leads to.
import type { Context } from "hono";
import * as onceShown from "../ui/once-shown.ts";
import type { Section } from "./frame.tsx";
import { sessionCookie } from "./session-guard.tsx";

const cookieOf = (section: Section) => `vn_once_${section}`;

/** What the landing page shows: the secret with its label, and what happened. */
export interface OnceShown {
  label: string;
  secret: string;
  notice: string;
}

function sessionOf(c: Context): onceShown.OnceShownSession | undefined {
  const secret = sessionCookie(c);
  return secret === undefined ? undefined : { pages: "portal", secret };
}

/** Seals `shown` into the cookie the next page reads (the caller then redirects). */
export async function showOnceAfterRedirect(c: Context, section: Section, shown: OnceShown): Promise<void> {
  const session = sessionOf(c);
  if (session === undefined) throw new Error("a secret is shown once only within a session");
  await onceShown.showOnceAfterRedirect(c, cookieOf(section), session, shown);
}

/** The secret the last POST left for this page to show, once: the cookie is dropped with this answer. */
export function takeShownOnce(c: Context, section: Section): Promise<OnceShown | undefined> {
  return onceShown.takeShownOnce<OnceShown>(c, cookieOf(section), sessionOf(c));
}
