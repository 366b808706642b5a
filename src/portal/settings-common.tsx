// Helpers shared by the portal's Settings pages.

import type { Context, MiddlewareHandler } from "hono";
import type { PortalEnv } from "../env.ts";
import type { Problem } from "../lib/problem.ts";
import { Notice } from "../ui/components.tsx";
import { renderPage } from "../ui/renderer.tsx";
import { managesSettings, type Section } from "./frame.tsx";
import type { OnceShown } from "./once-shown.ts";

/** Settings are for owners and admins: a member gets a 403 page, for a GET and a POST alike. */
export const requireSettingsRole: MiddlewareHandler<PortalEnv> = async (c, next) => {
  if (managesSettings(c.var.visitor.user.role)) return next();
  return renderPage(
    c,
    { title: "Not allowed", section: "orders" },
    <>
      <h1>Not allowed</h1>
      <Notice kind="error">Settings are for the account's owners and admins. Ask one of them for what you need.</Notice>
    </>,
    403,
  );
};

// The copy buttons start hidden and the script shows them: without JavaScript the secret is selectable text.
const COPY_SCRIPT = `for (const button of document.querySelectorAll("button[data-copy]")) {
  button.hidden = false;
  button.addEventListener("click", async () => {
    const text = document.getElementById(button.dataset.copy).textContent;
    try { await navigator.clipboard.writeText(text); button.textContent = "Copied"; }
    catch { button.textContent = "Select the text and copy it"; }
  });
}`;

/** A secret shown once: the text, a copy button, and the warning that it will not be shown again. */
function OnceSecret({ c, id, label, secret }: { c: Context; id: string; label: string; secret: string }) {
  return (
    <div class="card">
      <p>
        <strong>{label}</strong> — copy it now: it is shown only this once.
      </p>
      <p class="secret" id={id}>
        {secret}
      </p>
      <button type="button" class="secondary" data-copy={id} hidden>
        Copy
      </button>
      <script nonce={c.get("secureHeadersNonce")} dangerouslySetInnerHTML={{ __html: COPY_SCRIPT }} />
    </div>
  );
}

/** A page that refuses an action: the problem's words, with its status, and a way back. */
export function refusalPage(c: Context, section: Section, problem: Problem, back: string) {
  const title = problem.status === 404 ? "Not found" : "Not done";
  return renderPage(
    c,
    { title, section },
    <>
      <h1>{title}</h1>
      <Notice kind="error">{problem.message}</Notice>
      <p>
        <a href={back}>Back</a>
      </p>
    </>,
    problem.status,
  );
}

/** What a Settings page says first: the secret its form's redirect left to show once, or what the redirect did. */
export function AfterRedirect({
  c,
  id,
  shown,
  done,
}: {
  c: Context;
  id: string;
  shown: OnceShown | undefined;
  done: string | undefined;
}) {
  if (shown) {
    return (
      <>
        <Notice kind="success">{shown.notice}</Notice>
        <OnceSecret c={c} id={id} label={shown.label} secret={shown.secret} />
      </>
    );
  }
  return done ? <Notice kind="success">{done}</Notice> : null;
}
