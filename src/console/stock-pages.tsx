// Console pages for the number stock: list, import and removal.
import type { Context } from "hono";
import type { Child } from "hono/jsx";
import { pageWindow } from "../db/paging.ts";
import { STOCK_STATUSES, type StockNumberRow, type StockStatus } from "../db/schema.ts";
import type { ConsoleEnv } from "../env.ts";
import { formParts, readsOwnMultipartBody } from "../http/multipart.ts";
import { pageMeta } from "../http/pagination.ts";
import { isMultipart } from "../http/request-body.ts";
import { workOf } from "../http/request-context.ts";
import { createRouter } from "../http/router.ts";
import { capitalised, words } from "../lib/words.ts";
import { formatOrderNumber } from "../orders/schemas.ts";
import { changeGuard, mayChange, offered } from "../staff/roles.ts";
import { ordersOfReservations } from "../stock/holders.ts";
import { isHoldLapsed } from "../stock/holds.ts";
import {
  CSV_IMPORT_BYTES,
  CSV_IMPORT_LIMITS,
  listStockQuery,
  rowsOfCsv,
  stockPhoneParams,
  toStockListQuery,
} from "../stock/schemas.ts";
import { listStock, stockSummary } from "../stock/store.ts";
import { type ImportReport, importStockAction, removeStockNumberAction } from "../stock/use-cases.ts";
import { leaveAfterRedirect, takeAfterRedirect } from "../ui/after-redirect.ts";
import { Badge, Confirmation, CsrfField, type NoticeText, Pager, StatusTabs, Table } from "../ui/components.tsx";
import { notFoundPage } from "../ui/error-page.tsx";
import { dateTime, plural, withQuery } from "../ui/format.ts";
import { fieldMessages, PerPageField, readForm, TextInput } from "../ui/forms.tsx";
import { FilterForm, listFilters, PairFilterFields, type PairFilterProps } from "../ui/list-filters.tsx";
import { renderPage } from "../ui/renderer.tsx";
import { noticeOf, refusal, staffNote } from "./admin-common.tsx";

type C = Context<ConsoleEnv>;
type StockCountRow = Awaited<ReturnType<typeof stockSummary>>[number];

export const STOCK = "/ops/stock";
const STOCK_DONE: Record<string, string> = {
  removed: "The number is removed from the stock.",
  imported: "The file is imported.",
};
/** The cookie that carries an import's report to the page after its redirect. */
const IMPORT_REPORT = "vn_once_stock_import";

/**
 * An import's report as the page after the redirect shows it: the counts, and of each list its first items, as many
 * as the cookie holds (the counts say how many there were).
 */
type ShownImport = ImportReport;

/** The most items of each list an import's report shows after the redirect, if the cookie holds them. */
const SHOWN_ITEMS = 20;

function shownImport(report: ImportReport): ShownImport {
  return firstItems(report, SHOWN_ITEMS);
}

/** The report with at most `items` of each list. */
function firstItems<R extends ImportReport>(report: R, items: number): R {
  return {
    ...report,
    duplicates: report.duplicates.slice(0, items),
    invalid: report.invalid.slice(0, items),
    unlistedPairs: report.unlistedPairs.slice(0, items),
  };
}

/** A shown report with half as many items of each list, until none are left. */
function fewerItems(shown: ShownImport): ShownImport | undefined {
  const items = Math.max(shown.duplicates.length, shown.invalid.length, shown.unlistedPairs.length);
  return items === 0 ? undefined : firstItems(shown, Math.floor(items / 2));
}

/** "the first 3 of 40" when a list shows fewer than there were. */
function ofMany(shown: number, total: number, noun: string): string {
  return shown < total ? ` (the first ${shown} of ${total.toLocaleString("en-US")} ${noun})` : "";
}

function StockFilters({ values, errors, pairs }: PairFilterProps) {
  return (
    <FilterForm action={STOCK} values={values}>
      {values.status ? <input type="hidden" name="status" value={values.status} /> : null}
      <TextInput name="search" label="Search" value={values.search} error={errors.search} hint="Digits of the number" />
      <PairFilterFields values={values} errors={errors} pairs={pairs} />
      <TextInput name="import_id" label="Import" value={values.import_id} error={errors.import_id} hint="An import's id" />
      <PerPageField values={values} errors={errors} />
    </FilterForm>
  );
}

/** Numbers per (country, type): the stock's counts, an import's pairs not in the catalog. */
function PairCounts({ label, pairs }: { label: string; pairs: { countryCode: string; numberType: string; count: number }[] }) {
  return (
    <Table
      label={label}
      rows={pairs}
      columns={[
        { label: "Country", cell: (pair) => pair.countryCode },
        { label: "Type", cell: (pair) => words(pair.numberType) },
        { label: "Numbers", cell: (pair) => String(pair.count) },
      ]}
    />
  );
}

/** The stock per (country, type): how many are available, quarantined and reserved, and in all. */
function StockSummaryTable({ summary }: { summary: readonly StockCountRow[] }) {
  return (
    <Table
      label="Stock per country and type"
      rows={summary}
      columns={[
        { label: "Country", cell: (pair) => pair.countryCode },
        { label: "Type", cell: (pair) => words(pair.numberType) },
        ...STOCK_STATUSES.map((status) => ({ label: capitalised(status), cell: (pair: StockCountRow) => String(pair[status]) })),
        { label: "In all", cell: (pair) => String(pair.count) },
      ]}
    />
  );
}

/** The orders whose reservations hold reserved numbers of a page, by reservation id. */
type HoldingOrders = Awaited<ReturnType<typeof ordersOfReservations>>;

/**
 * When a stocked number can be given to an order: now, from a date (quarantined), when its reservation's hold lapses,
 * or not while it is held for the order placed from its reservation.
 */
function availability(row: StockNumberRow, holding: HoldingOrders, now: number): Child {
  switch (row.status) {
    case "available":
      return "now";
    case "quarantined":
      return `from ${dateTime(row.availableAt)}`;
    case "reserved": {
      if (row.heldUntil !== null)
        return isHoldLapsed(row, now) ? "now (its hold lapsed)" : `reserved until ${dateTime(row.heldUntil)}`;
      const order = row.reservationId === null ? undefined : holding.get(row.reservationId);
      return order ? (
        <>
          held for order <a href={`/ops/orders/${order.id}`}>{formatOrderNumber(order.orderSeq)}</a>
        </>
      ) : (
        "held for its order"
      );
    }
  }
}

/** An import's per-row report, with a warning first for pairs the catalog lacks. */
function ImportReportCard({ report }: { report: ShownImport }) {
  return (
    <section class="card report" aria-label="Import report">
      <h2>Import report</h2>
      <p>
        {plural(report.imported, "number")} imported, {plural(report.duplicateCount, "duplicate")} skipped,{" "}
        {plural(report.invalidCount, "row")} refused. <a href={`${STOCK}?import_id=${report.importId}`}>This import's numbers</a>
      </p>
      {report.unlistedPairCount > 0 ? (
        <div class="notice warning" role="status">
          <h3>Not in the catalog{ofMany(report.unlistedPairs.length, report.unlistedPairCount, "pairs")}</h3>
          <p>
            No order can take these numbers until their country and type are in the catalog: add the pair, or check the file for a
            typo.
          </p>
          <PairCounts label="Imported pairs not in the catalog" pairs={report.unlistedPairs} />
        </div>
      ) : null}
      {report.duplicates.length > 0 ? (
        <>
          <h3>
            Duplicates (in stock already, allocated, or repeated in the file)
            {ofMany(report.duplicates.length, report.duplicateCount, "duplicates")}
          </h3>
          <ul class="ids">
            {report.duplicates.map((phone) => (
              <li>{phone}</li>
            ))}
          </ul>
        </>
      ) : null}
      {report.invalid.length > 0 ? (
        <>
          <h3>Refused rows{ofMany(report.invalid.length, report.invalidCount, "refused rows")}</h3>
          <Table
            label="Refused rows"
            rows={report.invalid}
            columns={[
              // The file's line: the header is line 1, the first data row (index 0) line 2.
              { label: "Line", cell: (row) => String(row.index + 2) },
              {
                label: "Reasons",
                cell: (row) => (
                  <ul class="reasons">
                    {row.errors.map((error) => (
                      <li>
                        {error.field} {error.message}
                      </li>
                    ))}
                  </ul>
                ),
              },
            ]}
          />
        </>
      ) : null}
    </section>
  );
}

interface StockState {
  report?: ShownImport | undefined;
  fileError?: string;
  said?: NoticeText;
}

async function stockPage(c: C, state: StockState = {}, status = 200) {
  const page = { title: "Stock", section: "stock" };
  // After an import the page shows the whole stock; its own filters are the GET's.
  // The pairs in stock, which its filters offer.
  const summary = await stockSummary(c.var.db);
  const filters = listFilters(c, listStockQuery, page, (props) => <StockFilters {...props} pairs={summary} />);
  if ("answer" in filters) return filters.answer;
  const { raw, query } = filters;
  const window = pageWindow(query.page, query.limit);
  const list = await listStock(c.var.db, toStockListQuery(query), window);
  const holding = await ordersOfReservations(
    c.var.db,
    list.rows.flatMap((row) =>
      row.status === "reserved" && row.heldUntil === null && row.reservationId ? [row.reservationId] : [],
    ),
  );
  const meta = pageMeta(window, list.total);
  const changes = mayChange(c.var.operator, importStockAction);
  const mayRemove = mayChange(c.var.operator, removeStockNumberAction);
  const total = summary.reduce((sum, pair) => sum + pair.count, 0);
  const totals = Object.fromEntries(
    STOCK_STATUSES.map((status) => [status, summary.reduce((sum, pair) => sum + pair[status], 0)]),
  ) as Record<StockStatus, number>;
  return renderPage(
    c,
    page,
    <>
      <h1>Stock</h1>
      {noticeOf(c, STOCK_DONE, state.said)}
      {state.report ? <ImportReportCard report={state.report} /> : null}
      <h2>Per country and type</h2>
      {summary.length === 0 ? (
        <div class="card empty">
          <p>The stock is empty.</p>
        </div>
      ) : (
        <StockSummaryTable summary={summary} />
      )}
      <p class="muted">
        {plural(total, "number")} in stock in all; {plural(totals.available, "number")} available now.
      </p>
      {changes ? (
        <form method="post" action={`${STOCK}/import`} enctype="multipart/form-data" class="card stack">
          {/* The token first: the guard reads only this part before the route decides to read the file. */}
          <CsrfField token={c.var.csrfToken} />
          <h2>Import a CSV</h2>
          <TextInput
            name="file"
            label="CSV file"
            type="file"
            required
            error={state.fileError}
            hint={`Header phone_number,country_code,number_type; ${CSV_IMPORT_LIMITS}.`}
          />
          <div>
            <button type="submit">Import</button>
          </div>
        </form>
      ) : null}
      <h2>Numbers</h2>
      <StatusTabs path={STOCK} query={raw} statuses={STOCK_STATUSES} counts={totals} filtered={query.status} />
      <StockFilters values={raw} errors={{}} pairs={summary} />
      {list.rows.length === 0 ? (
        <div class="card empty">
          <p>No numbers in stock match.</p>
        </div>
      ) : (
        <Table
          label="Stocked numbers"
          rows={list.rows}
          columns={[
            { label: "Number", cell: (row) => row.phoneNumber },
            { label: "Country", cell: (row) => row.countryCode },
            { label: "Type", cell: (row) => words(row.numberType) },
            { label: "Status", cell: (row) => <Badge status={row.status} /> },
            { label: "Available", cell: (row) => availability(row, holding, c.var.now) },
            { label: "Source", cell: (row) => capitalised(row.source) },
            { label: "Imported", cell: (row) => dateTime(row.importedAt) },
            ...(mayRemove
              ? [
                  {
                    label: "Action",
                    cell: (row: StockNumberRow) =>
                      offered(c.var.operator, removeStockNumberAction, row, c.var.now) ? (
                        <a
                          href={`${STOCK}/remove?phone_number=${encodeURIComponent(row.phoneNumber)}`}
                          aria-label={`Remove ${row.phoneNumber}…`}
                        >
                          Remove…
                        </a>
                      ) : (
                        "held"
                      ),
                  },
                ]
              : []),
          ]}
        />
      )}
      <Pager meta={meta} noun="number" hrefOf={(n) => `${STOCK}${withQuery(raw, { page: String(n) })}`} />
    </>,
    status,
  );
}

/** The CSV file of an import form: its bytes, or the error to show beside the field. */
async function postedCsv(c: C): Promise<{ bytes: Uint8Array } | { error: string }> {
  if (!isMultipart(c.req.raw)) return { error: "must be sent as a file upload" };
  const file = (await formParts(c.req.raw)).find((part) => part.name === "file" && part.filename !== undefined);
  if (!file || file.data.byteLength === 0) return { error: "is required" };
  if (file.data.byteLength > CSV_IMPORT_BYTES) return { error: `must be at most ${CSV_IMPORT_BYTES / (1024 * 1024)} MiB` };
  return { bytes: file.data };
}

/** The stock pages, mounted under /ops. */
export const stockPages = createRouter<ConsoleEnv>()
  .get("/stock", async (c) => stockPage(c, { report: await takeAfterRedirect<ShownImport>(c, staffNote(c, IMPORT_REPORT)) }))
  .post("/stock/import", changeGuard(importStockAction), readsOwnMultipartBody, async (c) => {
    const csv = await postedCsv(c);
    if ("error" in csv) return stockPage(c, { fileError: csv.error }, 400);
    const rows = rowsOfCsv(csv.bytes);
    if (!rows.ok)
      return stockPage(c, { fileError: rows.problem.errors?.[0]?.message ?? rows.problem.message }, rows.problem.status);
    const imported = await importStockAction.run(workOf(c), rows.value);
    if (!imported.ok) return stockPage(c, { said: refusal(imported.problem) }, imported.problem.status);
    await leaveAfterRedirect(c, staffNote(c, IMPORT_REPORT), shownImport(imported.value), fewerItems);
    return c.redirect(`${STOCK}?done=imported`, 303);
  })
  .get("/stock/remove", changeGuard(removeStockNumberAction), (c) => {
    const parsed = stockPhoneParams.safeParse({ phone_number: c.req.query("phone_number") ?? "" });
    if (!parsed.success)
      return notFoundPage(c, { what: "Stock number", section: "stock", back: { href: STOCK, label: "Back to the stock" } });
    const phone = parsed.data.phone_number;
    return renderPage(
      c,
      { title: `Remove ${phone}`, section: "stock" },
      <Confirmation
        token={c.var.csrfToken}
        title={`Remove ${phone} from the stock?`}
        action={`${STOCK}/remove?phone_number=${encodeURIComponent(phone)}`}
        button="Remove the number"
        cancel={STOCK}
      >
        <p>The number leaves the stock: no order can be given it from the stock any more. Importing it again brings it back.</p>
      </Confirmation>,
    );
  })
  .post("/stock/remove", changeGuard(removeStockNumberAction), async (c) => {
    // The confirmation names the number in its address; a form may send it as a field.
    const phone = (await readForm(c)).fields.phone_number ?? c.req.query("phone_number") ?? "";
    const parsed = stockPhoneParams.safeParse({ phone_number: phone });
    if (!parsed.success) {
      return stockPage(
        c,
        { said: { kind: "error", text: `Phone number ${fieldMessages(parsed.error.issues).phone_number}` } },
        400,
      );
    }
    const removed = await removeStockNumberAction.run(workOf(c), parsed.data.phone_number);
    if (!removed.ok) return stockPage(c, { said: refusal(removed.problem) }, removed.problem.status);
    return c.redirect(`${STOCK}?done=removed`, 303);
  });
