// The portal's page frame: the top bar with the navigation (the current section marked), who is signed in and the
// sign-out form; and the small components every page uses (badges, field errors, notices, the CSRF field).
import type { Context } from "hono";
import { html } from "hono/html";
import type { Child } from "hono/jsx";
import type { PortalVisitor } from "../env.ts";

/** Where the stylesheet is served; its content is a module constant, so the address never changes meaning. */
export const PORTAL_CSS_PATH = "/portal/assets/portal.css";
/** Where the icon is served: from this origin, as the pages' Content-Security-Policy allows images (no data: URL). */
export const PORTAL_ICON_PATH = "/portal/assets/icon.svg";

/** The form field that carries the session's CSRF token (an upload's first part). */
export const CSRF_FIELD = "csrf_token";

export type Section = "orders" | "numbers" | "keys" | "team" | "webhooks";

const SECTIONS: { id: Section; href: string; label: string; settings: boolean }[] = [
  { id: "orders", href: "/portal/orders", label: "Orders", settings: false },
  { id: "numbers", href: "/portal/numbers", label: "Numbers", settings: false },
  { id: "keys", href: "/portal/settings/api-keys", label: "API keys", settings: true },
  { id: "team", href: "/portal/settings/team", label: "Team", settings: true },
  { id: "webhooks", href: "/portal/settings/webhooks", label: "Webhooks", settings: true },
];

/** Whether the role sees the Settings pages: owners and admins; members read and work, they do not administer. */
export function managesSettings(role: PortalVisitor["user"]["role"]): boolean {
  return role === "owner" || role === "admin";
}

/** The hidden field every form of a session's pages carries. */
export function CsrfField({ token }: { token: string }) {
  return <input type="hidden" name={CSRF_FIELD} value={token} />;
}

export function Badge({ status }: { status: string }) {
  return <span class={`badge ${status}`}>{status.replaceAll("_", " ")}</span>;
}

/** A field's error, next to it; `id` is what the input's aria-describedby names. */
export function FieldError({ id, message }: { id: string; message: string | undefined }) {
  return message ? (
    <p class="field-error" id={id}>
      {message}
    </p>
  ) : null;
}

/** The current query string with some parameters replaced (undefined removes one); page goes back to 1. */
export function withQuery(current: Record<string, string>, changes: Record<string, string | undefined>): string {
  const next = new URLSearchParams({ ...current });
  next.delete("page");
  for (const [name, value] of Object.entries(changes)) {
    if (value === undefined) next.delete(name);
    else next.set(name, value);
  }
  const text = next.toString();
  return text ? `?${text}` : "";
}

/**
 * A list's status counts as tabs: "All" and one tab per status, each keeping the other filters; the tab of the one
 * status filtered on (or All) is the current one.
 */
export function StatusTabs<S extends string>({
  path,
  query,
  statuses,
  counts,
  filtered,
}: {
  path: string;
  query: Record<string, string>;
  statuses: readonly S[];
  counts: Record<S, number>;
  filtered: readonly S[] | undefined;
}) {
  const all = statuses.reduce((sum, status) => sum + counts[status], 0);
  const current = filtered?.length === 1 ? filtered[0] : undefined;
  return (
    <ul class="tabs" aria-label="Status">
      <li>
        <a href={`${path}${withQuery(query, { status: undefined })}`} aria-current={filtered ? undefined : "page"}>
          All ({all})
        </a>
      </li>
      {statuses.map((status) => (
        <li>
          <a href={`${path}${withQuery(query, { status })}`} aria-current={current === status ? "page" : undefined}>
            {status} ({counts[status]})
          </a>
        </li>
      ))}
    </ul>
  );
}

/** A list's paging: previous and next links around "Page n of m · total <noun>"; `hrefOf` makes a page's address. */
export function Pager({
  meta,
  noun,
  hrefOf,
}: {
  meta: { page: number; totalPages: number; total: number; hasPreviousPage: boolean; hasNextPage: boolean };
  noun: string;
  hrefOf: (page: number) => string;
}) {
  return (
    <nav class="pager" aria-label="Pages">
      {meta.hasPreviousPage ? <a href={hrefOf(meta.page - 1)}>Previous</a> : null}
      <span class="muted">
        Page {meta.page} of {Math.max(meta.totalPages, 1)} · {meta.total} {noun}
      </span>
      {meta.hasNextPage ? <a href={hrefOf(meta.page + 1)}>Next</a> : null}
    </nav>
  );
}

export function Notice({ kind, children }: { kind: "error" | "success"; children: Child }) {
  return (
    <div class={`notice ${kind}`} role={kind === "error" ? "alert" : "status"}>
      {children}
    </div>
  );
}

function Document({ title, children }: { title: string; children: Child }) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${title} · virtual-numbers`}</title>
        <link rel="stylesheet" href={PORTAL_CSS_PATH} />
        <link rel="icon" href={PORTAL_ICON_PATH} type="image/svg+xml" />
      </head>
      <body>{children}</body>
    </html>
  );
}

/** A page without the navigation: sign-in, invitation, errors before a session. */
export function renderBarePage(c: Context, title: string, body: Child, status: 200 | 400 | 403 | 404 | 410 | 429 = 200) {
  return c.html(html`<!DOCTYPE html>${<Document title={title}>{<main>{body}</main>}</Document>}`, status);
}

/** A page of a session: the top bar, then the page's body. */
export function renderPage(
  c: Context,
  visitor: PortalVisitor,
  page: { title: string; section: Section },
  body: Child,
  status: 200 | 400 | 403 | 404 | 409 | 422 = 200,
) {
  const sections = SECTIONS.filter((s) => !s.settings || managesSettings(visitor.user.role));
  const frame = (
    <Document title={page.title}>
      <header class="top">
        <a class="brand" href="/portal/orders">
          virtual-numbers
        </a>
        <nav aria-label="Main">
          {sections.map((s) => (
            <a href={s.href} aria-current={s.id === page.section ? "page" : undefined}>
              {s.label}
            </a>
          ))}
        </nav>
        <div class="who">
          <span>
            {visitor.user.name} · {visitor.customer.name}
          </span>
          <form method="post" action="/portal/sign-out" class="inline">
            <CsrfField token={visitor.csrfToken} />
            <button type="submit">Sign out</button>
          </form>
        </div>
      </header>
      <main>{body}</main>
    </Document>
  );
  return c.html(html`<!DOCTYPE html>${frame}`, status);
}
