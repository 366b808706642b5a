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

/** A stored value for people: "under_review" reads "under review", "toll_free" "toll free". */
export function words(value: string): string {
  return value.replaceAll("_", " ");
}

/** The same, capitalised, for a label or a choice: "Under review", "Individual". */
export function capitalised(value: string): string {
  const text = words(value);
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** A time for people, to the minute: "2026-11-21 09:30 UTC", from stored milliseconds or the API's ISO text; a dash for none. */
export function dateTime(time: number | string | null): string {
  return time === null ? "—" : `${new Date(time).toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

/** A calendar day for people: "2026-11-21" (UTC); a dash for none. */
export function date(time: number | string | null): string {
  return time === null ? "—" : new Date(time).toISOString().slice(0, 10);
}

/** "1 key", "3 keys"; `many` for the irregular ("deliveries"). */
function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}

export function Badge({ status }: { status: string }) {
  return <span class={`badge ${status}`}>{words(status)}</span>;
}

/** One column of a Table: its header, and what a row shows in it. */
export interface Column<T> {
  label: string;
  cell: (row: T) => Child;
}

/**
 * A table that never makes a page scroll sideways: wide screens see rows and columns (scrolling inside the table when
 * they must); at 600 px and less each row is a card, each cell under its column's label (data-label).
 */
export function Table<T>({ label, columns, rows }: { label: string; columns: readonly Column<T>[]; rows: readonly T[] }) {
  return (
    <div class="table-wrap">
      <table aria-label={label}>
        <thead>
          <tr>
            {columns.map((column) => (
              <th scope="col">{column.label}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr>
              {columns.map((column) => (
                <td data-label={column.label}>
                  <div>{column.cell(row)}</div>
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/**
 * The one way a destructive action asks first: a page that says what will go and what follows, one button that does
 * it, and a way back. The action's POST carries the CSRF token like every form.
 */
export function Confirmation({
  token,
  title,
  children,
  action,
  button,
  cancel,
}: {
  token: string;
  title: string;
  children: Child;
  action: string;
  button: string;
  cancel: string;
}) {
  return (
    <div class="card">
      <h1>{title}</h1>
      {children}
      <form method="post" action={action} class="actions">
        <CsrfField token={token} />
        <button type="submit" class="danger">
          {button}
        </button>
        <a href={cancel}>Cancel</a>
      </form>
    </div>
  );
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
            {capitalised(status)} ({counts[status]})
          </a>
        </li>
      ))}
    </ul>
  );
}

/**
 * A list's paging: previous and next links around "Page n of m · 3 keys"; `hrefOf` makes a page's address, `noun`
 * names one item and `nouns` several, when not `noun` + s.
 */
export function Pager({
  meta,
  noun,
  nouns,
  hrefOf,
}: {
  meta: { page: number; totalPages: number; total: number; hasPreviousPage: boolean; hasNextPage: boolean };
  noun: string;
  nouns?: string;
  hrefOf: (page: number) => string;
}) {
  return (
    <nav class="pager" aria-label="Pages">
      {meta.hasPreviousPage ? <a href={hrefOf(meta.page - 1)}>Previous</a> : null}
      <span class="muted">
        Page {meta.page} of {Math.max(meta.totalPages, 1)} · {plural(meta.total, noun, nouns)}
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
export function renderBarePage(c: Context, title: string, body: Child, status: 200 | 400 | 403 | 404 | 410 | 415 | 429 = 200) {
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
          <span class="person">
            {visitor.user.name} · {visitor.customer.name}
          </span>
          <span class="slug" title="The account's slug, in every API path">
            {visitor.customer.slug}
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
