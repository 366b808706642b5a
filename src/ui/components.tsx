// Shared page components for the portal and the console.
import type { Context } from "hono";
import type { Child } from "hono/jsx";
import { capitalised, words } from "../lib/words.ts";
import { dateTime, doneMessage, plural, withQuery } from "./format.ts";

/** The form field that carries the session's CSRF token (an upload's first part). */
export const CSRF_FIELD = "csrf_token";

/** The hidden field every form of a session's pages carries. */
export function CsrfField({ token }: { token: string }) {
  return <input type="hidden" name={CSRF_FIELD} value={token} />;
}

export function Badge({ status }: { status: string }) {
  return <span class={`badge ${status}`}>{words(status)}</span>;
}

/** A time as dateTime writes it, on one line (a narrow column would break a date at its hyphens). */
export function Time({ time }: { time: number | string }) {
  return <time datetime={new Date(time).toISOString()}>{dateTime(time)}</time>;
}

/** One column of a Table: its header, and what a row shows in it. */
export interface Column<T> {
  label: string;
  cell: (row: T) => Child;
}

/** A word this long (a file name, an e-mail, a URL, an id) would hold its column wider than the page. */
const LONG_WORD = /[^\s<>]{20,}/;

/** Whether a cell's text holds a LONG_WORD (its markup, when it has any, left out). */
function holdsLongWord(content: Child): boolean {
  if (typeof content === "number" || typeof content === "boolean" || content === null || content === undefined) return false;
  return LONG_WORD.test(String(content).replace(/<[^>]*>/g, " "));
}

/**
 * A table that fits its page at any width: wide screens see rows and columns, each cell wrapping at spaces, and a cell
 * with a long word (class "long") anywhere in it, so short words stay whole and no column is pushed out of sight; at
 * 600 px and less each row is a card, each cell under its column's label (data-label).
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
              {columns.map((column) => {
                const content = column.cell(row);
                return (
                  <td data-label={column.label} class={holdsLongWord(content) ? "long" : undefined}>
                    <div>{content}</div>
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/**
 * The confirmation page every destructive action uses: what will be removed, one button that does it, and a way back
 * (`cancel`, labelled `back`: "Cancel" unless the action is itself a cancel).
 */
export function Confirmation({
  token,
  title,
  children,
  action,
  button,
  cancel,
  back = "Cancel",
}: {
  token: string;
  title: string;
  children: Child;
  action: string;
  button: string;
  cancel: string;
  back?: string;
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
        <a href={cancel}>{back}</a>
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

/**
 * A list's status counts as tabs: the list unfiltered (`unfiltered`: "All" of `statuses` unless the list's default is
 * fewer, e.g. what awaits review) and one tab per status, each keeping the other filters; the tab of the one status
 * filtered on (or the unfiltered one) is the current one.
 */
export function StatusTabs<S extends string>({
  path,
  query,
  statuses,
  counts,
  filtered,
  unfiltered = { label: "All", statuses },
}: {
  path: string;
  query: Record<string, string>;
  statuses: readonly S[];
  counts: Record<S, number>;
  filtered: readonly S[] | undefined;
  unfiltered?: { label: string; statuses: readonly S[] };
}) {
  const total = unfiltered.statuses.reduce((sum, status) => sum + counts[status], 0);
  const current = filtered?.length === 1 ? filtered[0] : undefined;
  return (
    <ul class="tabs" aria-label="Status">
      <li>
        <a href={`${path}${withQuery(query, { status: undefined })}`} aria-current={filtered ? undefined : "page"}>
          {unfiltered.label} ({total})
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

/** A page's notice: the use case's refusal message, or what was done. */
export interface NoticeText {
  kind: "error" | "success";
  text: string;
}

/**
 * A page's notice: its own (`own`, e.g. a refusal), else, on a page answered 200, what the redirect that led to it says
 * was done (`?done=`, one of `done`'s keys).
 */
export function pageNotice(
  c: Context,
  done: Readonly<Record<string, string>>,
  own: NoticeText | undefined,
  status = 200,
): NoticeText | undefined {
  if (own) return own;
  const text = status === 200 ? doneMessage(done, c.req.query("done")) : undefined;
  return text === undefined ? undefined : { kind: "success", text };
}

export function Notice({ kind, children }: { kind: "error" | "success"; children: Child }) {
  return (
    <div class={`notice ${kind}`} role={kind === "error" ? "alert" : "status"}>
      {children}
    </div>
  );
}
