// Results a portal page shows once after its form's redirect (src/ui/after-redirect.ts), such as a new secret or an
// action's report. Sealed with the session id, which only the session cookie holds.
import type { Context } from "hono";
import { leaveAfterRedirect, type RedirectNote, takeAfterRedirect } from "../ui/after-redirect.ts";
import type { Section } from "./frame.tsx";
import { sessionCookie } from "./session-guard.tsx";

/** The session's note for a page of `section`: one cookie per page that shows results. */
export function portalNote(c: Context, section: Section): RedirectNote {
  const secret = sessionCookie(c);
  // Every portal page is behind the session guard, which found this cookie.
  if (secret === undefined) throw new Error("a result is shown after a redirect only within a session");
  return { cookie: `vn_once_${section}`, secret };
}

/** What the landing page shows: the secret with its label, and what happened. */
export interface OnceShown {
  label: string;
  secret: string;
  notice: string;
}

/** Leaves `shown` for the next page of `section` (the caller then redirects). */
export function showOnceAfterRedirect(c: Context, section: Section, shown: OnceShown): Promise<void> {
  return leaveAfterRedirect(c, portalNote(c, section), shown);
}

/** The secret the last POST left for this page to show, once. */
export function takeShownOnce(c: Context, section: Section): Promise<OnceShown | undefined> {
  return takeAfterRedirect<OnceShown>(c, portalNote(c, section));
}
