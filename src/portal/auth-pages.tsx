// The portal's pages outside a session: sign-in, account choice, setting a password from an invitation, sign-out.
import type { Context } from "hono";
import type { AppEnv, PortalEnv } from "../env.ts";
import { authenticationFailure, refuseSpentAddress } from "../http/auth-failures.ts";
import { createRouter } from "../http/router.ts";
import { type ScryptParameters, scryptParameters } from "../lib/passwords.ts";
import { Notice } from "../ui/components.tsx";
import { doneMessage } from "../ui/format.ts";
import { readForm, TextInput } from "../ui/forms.tsx";
import { pageRenderer, renderPage } from "../ui/renderer.tsx";
import {
  type AccountChoice,
  acceptInvitation,
  findInvitation,
  PASSWORD_MAX_LENGTH,
  PASSWORD_MIN_LENGTH,
  passwordProblem,
  signIn,
} from "../users/credentials.ts";
import { endSession, signInChoicesOf, startChosenSession } from "../users/sessions.ts";
import {
  CHOOSE_ACCOUNT_PATH,
  clearSessionCookie,
  clearSignInChoiceCookie,
  landingPath,
  requireSession,
  SIGN_IN_PATH,
  sessionCookie,
  setSessionCookie,
  setSignInChoiceCookie,
  signInChoiceCookie,
} from "./session-guard.tsx";

interface SignInForm {
  email?: string | undefined;
  next?: string | undefined;
  error?: string | undefined;
  notice?: string | undefined;
}

function SignIn({ form }: { form: SignInForm }) {
  return (
    <div class="card narrow">
      <h1>Sign in</h1>
      {form.notice ? <Notice kind="success">{form.notice}</Notice> : null}
      {form.error ? <Notice kind="error">{form.error}</Notice> : null}
      <form method="post" action={SIGN_IN_PATH} class="stack">
        <input type="hidden" name="next" value={form.next ?? ""} />
        <TextInput name="email" label="E-mail" type="email" autocomplete="username" required value={form.email} />
        <TextInput name="password" label="Password" type="password" autocomplete="current-password" required />
        <div>
          <button type="submit">Sign in</button>
        </div>
      </form>
    </div>
  );
}

/** The cost of this deployment's password hashes (wrangler.toml: PASSWORD_SCRYPT_LOG_N). */
function passwordHashing(c: Context<AppEnv>): ScryptParameters {
  return scryptParameters(c.env.PASSWORD_SCRYPT_LOG_N);
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

/**
 * The one answer to every refused sign-in, whatever the reason (unknown e-mail, wrong password, a locked or inactive
 * user): it says what to do in each case without saying which it is.
 */
const SIGN_IN_REFUSED =
  "That e-mail and password do not match. A user locked after too many failed sign-ins, or deactivated, cannot sign " +
  "in: ask an owner or admin of the account.";
const CHOICE_EXPIRED = "That sign-in has expired: sign in again.";

/** What a redirect to sign-in may announce. */
const SIGN_IN_NOTICES: Record<string, string> = {
  password: "Your password is set: sign in with it.",
  signed_out: "You are signed out.",
};

function ChooseAccount({ accounts, next }: { accounts: AccountChoice[]; next: string | undefined }) {
  return (
    <div class="card narrow">
      <h1>Choose an account</h1>
      <p>Your e-mail and password open several accounts. Which one do you want to work in?</p>
      <ul class="choices">
        {accounts.map((account) => (
          <li>
            <form method="post" action={CHOOSE_ACCOUNT_PATH}>
              <input type="hidden" name="account" value={account.slug} />
              <input type="hidden" name="next" value={next ?? ""} />
              <button type="submit" class="secondary">
                {account.name} <span class="muted">({account.slug})</span>
              </button>
            </form>
          </li>
        ))}
      </ul>
    </div>
  );
}

/** Pages anyone may open: sign-in, invitations. Mounted before the session pages, with a renderer of no frame. */
export const publicPortalPages = createRouter<AppEnv>()
  .use("/portal/*", pageRenderer())
  .get("/portal", (c) => c.redirect("/portal/orders", 303))
  .get(SIGN_IN_PATH, (c) =>
    renderPage(
      c,
      { title: "Sign in" },
      <SignIn form={{ next: c.req.query("next"), notice: doneMessage(SIGN_IN_NOTICES, c.req.query("done")) }} />,
    ),
  )
  .post(SIGN_IN_PATH, async (c) => {
    const form = (await readForm(c)).fields;
    const attempt = { email: form.email ?? "", next: form.next };
    const tooMany = () => renderPage(c, { title: "Sign in" }, <SignIn form={{ ...attempt, error: TOO_MANY_FAILURES }} />, 429);
    // Failed sign-ins spend the address's budget as failed API keys do: past it, no password is checked.
    if (addressIsRefused(c)) return tooMany();
    // A sign-in always starts afresh: the session this browser had ends with it.
    const result = await signIn(c.var.db, passwordHashing(c), attempt.email, form.password ?? "", c.var.now, sessionCookie(c));
    switch (result.outcome) {
      case "refused":
        if ((await authenticationFailure(c)).code === "rate_limited") return tooMany();
        return renderPage(c, { title: "Sign in" }, <SignIn form={{ ...attempt, error: SIGN_IN_REFUSED }} />, 400);
      case "signed_in":
        setSessionCookie(c, result.session);
        return c.redirect(landingPath(attempt.next), 303);
      case "choose_account":
        setSignInChoiceCookie(c, result.ticket);
        return c.redirect(`${CHOOSE_ACCOUNT_PATH}${attempt.next ? `?${new URLSearchParams({ next: attempt.next })}` : ""}`, 303);
    }
  })
  .get(CHOOSE_ACCOUNT_PATH, async (c) => {
    const ticket = signInChoiceCookie(c);
    const accounts = ticket === undefined ? [] : await signInChoicesOf(c.var.db, ticket, c.var.now);
    if (accounts.length === 0) return renderPage(c, { title: "Sign in" }, <SignIn form={{ error: CHOICE_EXPIRED }} />, 400);
    return renderPage(c, { title: "Choose an account" }, <ChooseAccount accounts={accounts} next={c.req.query("next")} />);
  })
  .post(CHOOSE_ACCOUNT_PATH, async (c) => {
    const form = (await readForm(c)).fields;
    const ticket = signInChoiceCookie(c);
    const session =
      ticket === undefined
        ? undefined
        : await startChosenSession(c.var.db, ticket, form.account ?? "", c.var.now, sessionCookie(c));
    clearSignInChoiceCookie(c);
    if (session === undefined) return renderPage(c, { title: "Sign in" }, <SignIn form={{ error: CHOICE_EXPIRED }} />, 400);
    setSessionCookie(c, session);
    return c.redirect(landingPath(form.next), 303);
  })
  .get("/portal/invitations/:token", async (c) => {
    const invitation = await findInvitation(c.var.db, c.req.param("token"), c.var.now);
    if (!invitation) return invitationGone(c);
    return renderPage(c, { title: "Set your password" }, <SetPassword email={invitation.user.email} />);
  })
  .post("/portal/invitations/:token", async (c) => {
    const token = c.req.param("token");
    const invitation = await findInvitation(c.var.db, token, c.var.now);
    if (!invitation) return invitationGone(c);
    const form = (await readForm(c)).fields;
    const password = form.password ?? "";
    const problem = passwordProblem(password, invitation.user.email);
    const mismatch = problem === null && password !== form.password_confirmation ? "must match the password" : undefined;
    if (problem || mismatch) {
      return renderPage(
        c,
        { title: "Set your password" },
        <SetPassword
          email={invitation.user.email}
          errors={{ password: problem ?? undefined, password_confirmation: mismatch }}
        />,
        400,
      );
    }
    const accepted = await acceptInvitation(c.var.db, passwordHashing(c), token, password, c.var.now);
    if (!accepted.ok) return invitationGone(c);
    // Not the e-mail: a URL is kept by platform logs, and a password manager fills it in.
    return c.redirect(`${SIGN_IN_PATH}?done=password`, 303);
  });

function invitationGone(c: Context) {
  return renderPage(
    c,
    { title: "Invitation" },
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
        <TextInput
          name="password"
          label="New password"
          type="password"
          autocomplete="new-password"
          required
          minlength={PASSWORD_MIN_LENGTH}
          maxlength={PASSWORD_MAX_LENGTH}
          error={errors.password}
        />
        <TextInput
          name="password_confirmation"
          label="Repeat the password"
          type="password"
          autocomplete="new-password"
          required
          error={errors.password_confirmation}
        />
        <div>
          <button type="submit">Set password</button>
        </div>
      </form>
    </div>
  );
}

/** Signing out ends the session (its row and the cookie). */
export const signOut = createRouter<PortalEnv>().post("/sign-out", requireSession, async (c) => {
  const token = sessionCookie(c);
  if (token !== undefined) await endSession(c.var.db, token);
  clearSessionCookie(c);
  return c.redirect(`${SIGN_IN_PATH}?done=signed_out`, 303);
});
