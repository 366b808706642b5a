// Token sign-in for the console where no Cloudflare Access stands in front (local development, tests). It answers 404
// unless ACCESS_JWKS is set, so in production a token never travels in a URL.
import type { Context } from "hono";
import { deleteCookie, setCookie } from "hono/cookie";
import type { AppEnv } from "../env.ts";
import { authenticationFailure } from "../http/auth-failures.ts";
import { createRouter } from "../http/router.ts";
import { notFound } from "../lib/problem.ts";
import { ACCESS_COOKIE, AccessKeysUnavailable, accessIdentity } from "../staff/access.ts";
import { renderDocument } from "../ui/document.tsx";

const signInPath = "/ops/sign-in";
export const signedOutPath = "/ops/signed-out";

/** Whether this deployment takes tokens in sign-in links: only where ACCESS_JWKS stands in for Access's own keys. */
function takesSignInLinks<E extends AppEnv>(c: Context<E>): boolean {
  return c.env.ACCESS_JWKS !== "";
}

/** Clears the Access cookie: the console's sign-out. */
export function clearAccessCookie(c: Context): void {
  deleteCookie(c, ACCESS_COOKIE, { path: "/", secure: true, httpOnly: true, sameSite: "Lax" });
}

/**
 * Where signing out leads: behind Access, Access's own logout (which ends the Access session too); without it, the
 * console's signed-out page.
 */
export function afterSignOut<E extends AppEnv>(c: Context<E>): string {
  return takesSignInLinks(c) ? signedOutPath : "/cdn-cgi/access/logout";
}

export const consoleSignIn = createRouter<AppEnv>()
  .get(signInPath, async (c) => {
    if (!takesSignInLinks(c)) throw notFound("Page");
    const token = c.req.query("token") ?? "";
    const identity = token === "" ? undefined : await accessIdentity(token, c.env, c.var.now);
    if (identity instanceof AccessKeysUnavailable) throw await authenticationFailure(c, identity.problem());
    if (!identity) {
      // Counted as a failed sign-in, as a bad token on /admin is: 401, or 429 once the address spent its budget.
      const refusal = await authenticationFailure(c);
      return renderDocument(
        c,
        "Sign-in refused",
        <div class="card narrow">
          <h1>This sign-in link does not work</h1>
          <p>{refusal.message}. Ask for a new link: npm start prints one each time it starts.</p>
        </div>,
        refusal.status as 401,
      );
    }
    setCookie(c, ACCESS_COOKIE, token, {
      path: "/",
      secure: true,
      httpOnly: true,
      sameSite: "Lax",
      maxAge: Math.max(0, Math.floor(identity.expiresAt - c.var.now / 1000)),
    });
    return c.redirect("/ops", 303);
  })
  .get(signedOutPath, (c) =>
    renderDocument(
      c,
      "Signed out",
      <div class="card narrow">
        <h1>You are signed out</h1>
        <p>Sign in again through Cloudflare Access{takesSignInLinks(c) ? ", or with the link npm start prints" : ""}.</p>
      </div>,
      200,
    ),
  );
