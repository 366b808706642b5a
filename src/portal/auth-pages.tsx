// The portal's pages before a session: sign-in and an invitation's set-password page; sign-out; the stylesheet.
import type { Context } from "hono";
import type { AppEnv, PortalEnv } from "../env.ts";
import { authenticationFailure, refuseSpentAddress } from "../http/auth-failures.ts";
import { createRouter } from "../http/router.ts";
import {
  acceptInvitation,
  findInvitation,
  PASSWORD_MAX_LENGTH,
  PASSWORD_MIN_LENGTH,
  passwordProblem,
  signIn,
} from "../users/credentials.ts";
import { endSession, startSession } from "../users/sessions.ts";
import { postedFields } from "./forms.tsx";
import { FieldError, Notice, PORTAL_CSS_PATH, renderBarePage } from "./layout.tsx";
import { clearSessionCookie, landingPath, requireSession, sessionCookie, setSessionCookie } from "./session-guard.tsx";
import { PORTAL_CSS } from "./styles.ts";

interface SignInForm {
  account?: string;
  email?: string;
  next?: string;
  error?: string;
}

function SignIn({ form }: { form: SignInForm }) {
  return (
    <div class="card narrow">
      <h1>Sign in</h1>
      {form.error ? <Notice kind="error">{form.error}</Notice> : null}
      <form method="post" action="/portal/sign-in" class="stack">
        <input type="hidden" name="next" value={form.next ?? ""} />
        <label>
          Account
          <input name="account" autocomplete="organization" required value={form.account ?? ""} />
        </label>
        <label>
          E-mail
          <input name="email" type="email" autocomplete="username" required value={form.email ?? ""} />
        </label>
        <label>
          Password
          <input name="password" type="password" autocomplete="current-password" required />
        </label>
        <button type="submit">Sign in</button>
      </form>
    </div>
  );
}

const TOO_MANY_FAILURES = "Too many failed sign-ins from this address: wait a minute and try again.";

/** Whether the request's address has spent its budget of failed authentications (the 429 of the API). */
function addressIsRefused(c: Context): boolean {
  try {
    refuseSpentAddress(c);
    return false;
  } catch {
    return true;
  }
}

const SIGN_IN_REFUSED = {
  invalid: "That account, e-mail and password do not match.",
  inactive: "This user is deactivated. Ask an owner or admin of the account.",
  locked: "This user is locked after too many failed sign-ins. Ask an owner or admin of the account to unlock it.",
} as const;

/** Pages anyone may open: sign-in, invitations, the stylesheet. Mounted before the session pages. */
export const publicPortalPages = createRouter<AppEnv>()
  .get(PORTAL_CSS_PATH, (c) => {
    c.header("Content-Type", "text/css; charset=utf-8");
    return c.body(PORTAL_CSS);
  })
  .get("/portal", (c) => c.redirect("/portal/orders", 303))
  .get("/portal/sign-in", (c) =>
    renderBarePage(
      c,
      "Sign in",
      <SignIn form={{ account: c.req.query("account"), email: c.req.query("email"), next: c.req.query("next") }} />,
    ),
  )
  .post("/portal/sign-in", async (c) => {
    const form = await postedFields(c);
    const attempt = { account: form.account ?? "", email: form.email ?? "", next: form.next };
    const tooMany = () => renderBarePage(c, "Sign in", <SignIn form={{ ...attempt, error: TOO_MANY_FAILURES }} />, 429);
    // Failed sign-ins spend the address's budget as failed API keys do: past it, no password is checked.
    if (addressIsRefused(c)) return tooMany();
    const outcome = await signIn(c.var.db, attempt.account, attempt.email, form.password ?? "", Date.now());
    if (!outcome.ok) {
      if ((await authenticationFailure(c)).code === "rate_limited") return tooMany();
      return renderBarePage(c, "Sign in", <SignIn form={{ ...attempt, error: SIGN_IN_REFUSED[outcome.reason] }} />, 400);
    }
    // A session this browser had before ends: a sign-in always starts afresh.
    const previous = sessionCookie(c);
    if (previous !== undefined) await endSession(c.var.db, previous);
    setSessionCookie(c, await startSession(c.var.db, outcome.value, Date.now()));
    return c.redirect(landingPath(attempt.next), 303);
  })
  .get("/portal/invitations/:token", async (c) => {
    const invitation = await findInvitation(c.var.db, c.req.param("token"), Date.now());
    if (!invitation) return invitationGone(c);
    return renderBarePage(c, "Set your password", <SetPassword email={invitation.user.email} />);
  })
  .post("/portal/invitations/:token", async (c) => {
    const token = c.req.param("token");
    const invitation = await findInvitation(c.var.db, token, Date.now());
    if (!invitation) return invitationGone(c);
    const form = await postedFields(c);
    const password = form.password ?? "";
    const problem = passwordProblem(password, invitation.user.email);
    const mismatch = problem === null && password !== form.password_confirmation ? "must match the password" : undefined;
    if (problem || mismatch) {
      return renderBarePage(
        c,
        "Set your password",
        <SetPassword
          email={invitation.user.email}
          errors={{ password: problem ?? undefined, password_confirmation: mismatch }}
        />,
        400,
      );
    }
    const accepted = await acceptInvitation(c.var.db, token, password, Date.now());
    if (!accepted.ok) return invitationGone(c);
    const query = new URLSearchParams({ account: invitation.customerSlug, email: invitation.user.email });
    return c.redirect(`/portal/sign-in?${query}`, 303);
  });

function invitationGone(c: Context) {
  return renderBarePage(
    c,
    "Invitation",
    <div class="card narrow">
      <h1>This invitation link no longer works</h1>
      <p>It has been used, has expired (links last 72 hours), or a newer one was sent. Ask an owner or admin for a new link.</p>
      <p>
        <a href="/portal/sign-in">Sign in</a>
      </p>
    </div>,
    410,
  );
}

function SetPassword({ email, errors = {} }: { email: string; errors?: { password?: string; password_confirmation?: string } }) {
  return (
    <div class="card narrow">
      <h1>Set your password</h1>
      <p class="muted">For {email}. 12 to 128 characters, not your e-mail address.</p>
      <form method="post" class="stack">
        <input type="hidden" name="email" value={email} autocomplete="username" />
        <label>
          New password
          <input
            name="password"
            type="password"
            autocomplete="new-password"
            required
            minlength={PASSWORD_MIN_LENGTH}
            maxlength={PASSWORD_MAX_LENGTH}
            aria-invalid={errors.password ? "true" : undefined}
            aria-describedby={errors.password ? "password-error" : undefined}
          />
        </label>
        <FieldError id="password-error" message={errors.password} />
        <label>
          Repeat the password
          <input
            name="password_confirmation"
            type="password"
            autocomplete="new-password"
            required
            aria-invalid={errors.password_confirmation ? "true" : undefined}
            aria-describedby={errors.password_confirmation ? "password_confirmation-error" : undefined}
          />
        </label>
        <FieldError id="password_confirmation-error" message={errors.password_confirmation} />
        <button type="submit">Set password</button>
      </form>
    </div>
  );
}

/** Signing out ends the session (its row and the cookie). */
export const signOut = createRouter<PortalEnv>().post("/sign-out", requireSession, async (c) => {
  const token = sessionCookie(c);
  if (token !== undefined) await endSession(c.var.db, token);
  clearSessionCookie(c);
  return c.redirect("/portal/sign-in", 303);
});
