// The console's administrative pages: the stock (counts, search, CSV import with its report, removal), the catalog
// (orderable pairs and their requirements, as a form: requirements-form.tsx), the staff, the audit log, and the
// accounts (opening one; their keys, users, invited ones apart, and recent orders). Every role reads them; each form is shown only to the roles that may use it (mayChange), and each POST is
// refused (403) for any other role before anything is read (changeGuard). Every change is the operator API's own use
// case, so the console keeps the same rules, says the same words and writes the same audit events.
import type { Context } from "hono";
import { auditNames } from "../audit/names.ts";
import { operatorAuditQuery, toAuditEvent, toAuditListQuery } from "../audit/schemas.ts";
import { listAuditEvents } from "../audit/store.ts";
import { catalogPairParams, newCatalogPairParams, requirementsBody, toRequirements } from "../catalog/schemas.ts";
import { findCatalogPair, listCatalog } from "../catalog/store.ts";
import { makeOrderable, removeRequirements, setRequirements, stopOrdering } from "../catalog/use-cases.ts";
import type { Requirements } from "../compliance/types.ts";
import { createApiKeyBody, createCustomerBody, MAX_NAME_LENGTH, slugParams } from "../customers/schemas.ts";
import { findApiKey, findCustomerBySlug, listApiKeys, listCustomers } from "../customers/store.ts";
import { issueApiKey, openAccount, revokeKey } from "../customers/use-cases.ts";
import { pageWindow } from "../db/paging.ts";
import { type CatalogRow, type CustomerRow, STAFF_ROLES, STAFF_STATUSES, USER_ROLES } from "../db/schema.ts";
import type { ConsoleEnv } from "../env.ts";
import { formParts, readsOwnMultipartBody } from "../http/multipart.ts";
import { pageMeta, pageOnlyQuery } from "../http/pagination.ts";
import { publicOrigin } from "../http/public-origin.ts";
import { isMultipart } from "../http/request-body.ts";
import { workOf } from "../http/request-context.ts";
import { createRouter } from "../http/router.ts";
import type { Problem } from "../lib/problem.ts";
import { capitalised, words } from "../lib/words.ts";
import { listOrders } from "../orders/list.ts";
import { listOrdersQuery, toOrder, toOrderListQuery } from "../orders/schemas.ts";
import { changeGuard, mayChange } from "../staff/roles.ts";
import { putStaffBody, staffEmailParams } from "../staff/schemas.ts";
import { findStaff, listStaff } from "../staff/store.ts";
import { setStaff } from "../staff/use-cases.ts";
import {
  CSV_IMPORT_BYTES,
  CSV_IMPORT_LIMITS,
  listStockQuery,
  rowsOfCsv,
  stockPhoneParams,
  toStockListQuery,
} from "../stock/schemas.ts";
import { listStock, stockSummary } from "../stock/store.ts";
import { type ImportReport, importNumbers, removeNumber } from "../stock/use-cases.ts";
import { leaveAfterRedirect, type RedirectNote, takeAfterRedirect } from "../ui/after-redirect.ts";
import { AuditKindFilters, AuditLog, type TargetHref } from "../ui/audit-log.tsx";
import { Badge, Confirmation, CsrfField, Notice, type NoticeText, Pager, pageNotice, Table } from "../ui/components.tsx";
import { notFoundPage } from "../ui/error-page.tsx";
import { dateTime, plural, withQuery } from "../ui/format.ts";
import {
  FilterForm,
  fieldMessages,
  listFilters,
  PairFilterFields,
  type PairFilterProps,
  PerPageField,
  problemFields,
  readForm,
  Select,
  TextInput,
  withCountryCodesUppercased,
} from "../ui/forms.tsx";
import { renderPage } from "../ui/renderer.tsx";
import { UserStatus } from "../ui/user-status.tsx";
import { createUserBody, teamListQuery, toInvitation, toTeamListQuery } from "../users/schemas.ts";
import { listTeam, TEAM_STATUSES } from "../users/store.ts";
import { addUser } from "../users/use-cases.ts";
import {
  postedRequirements,
  RequirementsFacts,
  RequirementsFields,
  type RequirementsValues,
  requirementsErrors,
  requirementsValues,
} from "./requirements-form.tsx";

type C = Context<ConsoleEnv>;
type Messages = Record<string, string>;

/** A page's form as posted again: the values, the error beside each field, the refusal's words on top. */
interface PostedForm {
  values?: Messages;
  errors?: Messages;
  said?: NoticeText;
}

/** The notice of a page: its own, else what the redirect that led to it says (`?done=`). */
function noticeOf(c: C, done: Readonly<Record<string, string>>, said: NoticeText | undefined) {
  const notice = pageNotice(c, done, said);
  return notice ? <Notice kind={notice.kind}>{notice.text}</Notice> : null;
}

function refusal(problem: Problem): NoticeText {
  return { kind: "error", text: problem.message };
}

/** A page of a list as its `page` and `limit` query ask (the API's page query; page 1 of 20 when they do not parse). */
function listWindow(c: C) {
  const parsed = pageOnlyQuery.safeParse(c.req.query());
  return parsed.success ? pageWindow(parsed.data.page, parsed.data.limit) : pageWindow(1, 20);
}

// ---------------------------------------------------------------------------------------------------------------------
// Stock

const STOCK = "/ops/stock";
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

/** What a POST leaves for the page it redirects to waits in `cookie`, under a key of the person's Access token. */
function staffNote(c: C, cookie: string): RedirectNote {
  const secret = c.var.operator.accessToken;
  // Every console page is behind requireStaffSession, which found the token.
  if (secret === undefined) throw new Error("a result is shown after a redirect only to a person signed in by Access");
  return { cookie, secret };
}

/** "the first 3 of 40" when a list shows fewer than there were. */
function ofMany(shown: number, total: number, noun: string): string {
  return shown < total ? ` (the first ${shown} of ${total.toLocaleString("en-US")} ${noun})` : "";
}

function StockFilters({ values, errors, pairs }: PairFilterProps) {
  return (
    <FilterForm action={STOCK} values={values}>
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

/** What an import did with each row, as the API's report says it: a warning first for pairs the catalog lacks. */
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
  const meta = pageMeta(window, list.total);
  const changes = mayChange(c.var.operator, "importStock");
  const mayRemove = mayChange(c.var.operator, "removeStockNumber");
  const total = summary.reduce((sum, pair) => sum + pair.count, 0);
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
        <PairCounts label="Stock per country and type" pairs={summary} />
      )}
      <p class="muted">{plural(total, "number")} in stock in all.</p>
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
            { label: "Imported", cell: (row) => dateTime(row.importedAt) },
            ...(mayRemove
              ? [
                  {
                    label: "Action",
                    cell: (row: { phoneNumber: string }) => (
                      <a
                        href={`${STOCK}/remove?phone_number=${encodeURIComponent(row.phoneNumber)}`}
                        aria-label={`Remove ${row.phoneNumber}…`}
                      >
                        Remove…
                      </a>
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

const stockRoutes = createRouter<ConsoleEnv>()
  .get("/stock", async (c) => stockPage(c, { report: await takeAfterRedirect<ShownImport>(c, staffNote(c, IMPORT_REPORT)) }))
  .post("/stock/import", changeGuard("importStock"), readsOwnMultipartBody, async (c) => {
    const csv = await postedCsv(c);
    if ("error" in csv) return stockPage(c, { fileError: csv.error }, 400);
    const rows = rowsOfCsv(csv.bytes);
    if (!rows.ok)
      return stockPage(c, { fileError: rows.problem.errors?.[0]?.message ?? rows.problem.message }, rows.problem.status);
    const imported = await importNumbers(workOf(c), rows.value);
    if (!imported.ok) return stockPage(c, { said: refusal(imported.problem) }, imported.problem.status);
    await leaveAfterRedirect(c, staffNote(c, IMPORT_REPORT), shownImport(imported.value), fewerItems);
    return c.redirect(`${STOCK}?done=imported`, 303);
  })
  .get("/stock/remove", changeGuard("removeStockNumber"), (c) => {
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
  .post("/stock/remove", changeGuard("removeStockNumber"), async (c) => {
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
    const removed = await removeNumber(workOf(c), parsed.data.phone_number);
    if (!removed.ok) return stockPage(c, { said: refusal(removed.problem) }, removed.problem.status);
    return c.redirect(`${STOCK}?done=removed`, 303);
  });

// ---------------------------------------------------------------------------------------------------------------------
// Catalog

const CATALOG = "/ops/catalog";
const CATALOG_DONE: Record<string, string> = {
  added: "The pair is orderable.",
  already: "The pair was orderable already.",
  removed: "The pair is no longer orderable. Existing orders keep it.",
  requirements: "The requirements are saved.",
  unrequired: "The requirements are removed: numbers of the pair need no verification.",
};

function pairPath(pair: Pick<CatalogRow, "countryCode" | "numberType">): string {
  return `${CATALOG}/${pair.countryCode}/${pair.numberType}`;
}

/** A pair's requirements in a line: the verification types, the fields and the documents they ask for. */
function RequirementsSummary({ requirements }: { requirements: Requirements | null }) {
  if (requirements === null) return <span class="muted">no verification needed</span>;
  const fields = [...new Set([...requirements.fields.individual, ...requirements.fields.business])];
  return (
    <span class="wrap">
      {requirements.verification_types.map(words).join(" or ")}
      {requirements.address_in_country ? ", address in the country" : ""}
      {fields.length > 0 ? `, fields: ${fields.map(words).join(", ")}` : ""}
      {`, ${plural(requirements.documents.length, "document")}`}
      {requirements.documents.length > 0 ? ` (${requirements.documents.map((document) => document.key).join(", ")})` : ""}
    </span>
  );
}

async function catalogPage(c: C, form: PostedForm = {}, status = 200) {
  const window = listWindow(c);
  const { rows, total } = await listCatalog(c.var.db, window);
  const meta = pageMeta(window, total);
  const mayAdd = mayChange(c.var.operator, "addCatalogPair");
  const mayRemove = mayChange(c.var.operator, "removeCatalogPair");
  const values = form.values ?? {};
  const errors = form.errors ?? {};
  return renderPage(
    c,
    { title: "Catalog", section: "catalog" },
    <>
      <h1>Catalog</h1>
      {noticeOf(c, CATALOG_DONE, form.said)}
      {mayAdd ? (
        <form method="post" action={`${CATALOG}/pairs`} class="card filters" aria-label="Add an orderable pair">
          <CsrfField token={c.var.csrfToken} />
          <TextInput
            name="country_code"
            label="Country"
            required
            value={values.country_code}
            error={errors.country_code}
            hint="e.g. US"
          />
          <TextInput
            name="number_type"
            label="Number type"
            required
            value={values.number_type}
            error={errors.number_type}
            hint="e.g. mobile, toll_free"
          />
          <div class="actions">
            <button type="submit">Add pair</button>
          </div>
        </form>
      ) : null}
      {rows.length === 0 ? (
        <div class="card empty">
          <p>Nothing is orderable yet.</p>
        </div>
      ) : (
        <Table
          label="Orderable pairs"
          rows={rows}
          columns={[
            { label: "Country", cell: (row) => row.countryCode },
            { label: "Type", cell: (row) => words(row.numberType) },
            { label: "Requirements", cell: (row) => <RequirementsSummary requirements={row.requirements ?? null} /> },
            { label: "Since", cell: (row) => dateTime(row.createdAt) },
            {
              label: "Actions",
              cell: (row) => (
                <span class="actions">
                  <a href={`${pairPath(row)}/requirements`} aria-label={`Requirements of ${row.countryCode} ${row.numberType}`}>
                    Requirements
                  </a>
                  {mayRemove ? (
                    <a href={`${pairPath(row)}/remove`} aria-label={`Remove ${row.countryCode} ${row.numberType}…`}>
                      Remove…
                    </a>
                  ) : null}
                </span>
              ),
            },
          ]}
        />
      )}
      <Pager meta={meta} noun="pair" hrefOf={(n) => `${CATALOG}?page=${n}`} />
    </>,
    status,
  );
}

/** The pair a path names, judged by the API's path schema, when it is orderable. */
async function pathPair(c: C): Promise<CatalogRow | undefined> {
  const parsed = catalogPairParams.safeParse({
    country_code: c.req.param("country_code"),
    number_type: c.req.param("number_type"),
  });
  if (!parsed.success) return undefined;
  return findCatalogPair(c.var.db, { countryCode: parsed.data.country_code, numberType: parsed.data.number_type });
}

function noSuchPair(c: C) {
  return notFoundPage(c, { what: "Catalog pair", section: "catalog", back: { href: CATALOG, label: "Back to the catalog" } });
}

interface RequirementsForm {
  values?: RequirementsValues;
  errors?: Messages;
  said?: NoticeText;
}

async function requirementsPage(c: C, pair: CatalogRow, form: RequirementsForm = {}, status = 200) {
  const maySet = mayChange(c.var.operator, "setCatalogRequirements");
  const mayRemove = mayChange(c.var.operator, "removeCatalogRequirements");
  const name = `${pair.countryCode} ${words(pair.numberType)}`;
  const requirements = pair.requirements ?? null;
  return renderPage(
    c,
    { title: `Requirements of ${name}`, section: "catalog" },
    <>
      <p>
        <a href={CATALOG}>← Catalog</a>
      </p>
      <h1>Requirements of {name}</h1>
      {noticeOf(c, CATALOG_DONE, form.said)}
      <p>
        <RequirementsSummary requirements={requirements} />
      </p>
      {maySet ? (
        <form method="post" action={`${pairPath(pair)}/requirements`} class="card stack" aria-label="Requirements" novalidate>
          <CsrfField token={c.var.csrfToken} />
          <RequirementsFields
            values={form.values ?? requirementsValues(requirements)}
            errors={form.errors ?? {}}
            countryCode={pair.countryCode}
          />
          <div>
            <button type="submit">Save requirements</button>
          </div>
        </form>
      ) : requirements ? (
        <RequirementsFacts requirements={requirements} countryCode={pair.countryCode} />
      ) : null}
      {mayRemove && requirements ? (
        <form method="post" action={`${pairPath(pair)}/requirements/remove`} class="actions">
          <CsrfField token={c.var.csrfToken} />
          <button type="submit" class="danger">
            Remove the requirements
          </button>
          <span class="muted">Numbers of the pair then need no verification.</span>
        </form>
      ) : null}
    </>,
    status,
  );
}

const catalogRoutes = createRouter<ConsoleEnv>()
  .get("/catalog", (c) => catalogPage(c))
  .post("/catalog/pairs", changeGuard("addCatalogPair"), async (c) => {
    const values = withCountryCodesUppercased((await readForm(c)).fields, ["country_code"]);
    const parsed = newCatalogPairParams.safeParse({
      country_code: values.country_code ?? "",
      number_type: (values.number_type ?? "").trim(),
    });
    if (!parsed.success) return catalogPage(c, { values, errors: fieldMessages(parsed.error.issues) }, 400);
    const made = await makeOrderable(workOf(c), { countryCode: parsed.data.country_code, numberType: parsed.data.number_type });
    if (!made.ok) return catalogPage(c, { values, said: refusal(made.problem) }, made.problem.status);
    return c.redirect(`${CATALOG}?done=${made.value.created ? "added" : "already"}`, 303);
  })
  .get("/catalog/:country_code/:number_type/remove", changeGuard("removeCatalogPair"), async (c) => {
    const pair = await pathPair(c);
    if (!pair) return noSuchPair(c);
    const name = `${pair.countryCode} ${words(pair.numberType)}`;
    return renderPage(
      c,
      { title: `Remove ${name}`, section: "catalog" },
      <Confirmation
        token={c.var.csrfToken}
        title={`Stop ordering ${name}?`}
        action={`${pairPath(pair)}/remove`}
        button="Remove the pair"
        cancel={CATALOG}
      >
        <p>New orders of the pair, and changes to orders of it, are refused from now on. Existing orders keep it.</p>
      </Confirmation>,
    );
  })
  .post("/catalog/:country_code/:number_type/remove", changeGuard("removeCatalogPair"), async (c) => {
    const pair = await pathPair(c);
    if (!pair) return noSuchPair(c);
    const stopped = await stopOrdering(workOf(c), pair);
    if (!stopped.ok) return catalogPage(c, { said: refusal(stopped.problem) }, stopped.problem.status);
    return c.redirect(`${CATALOG}?done=removed`, 303);
  })
  .get("/catalog/:country_code/:number_type/requirements", async (c) => {
    const pair = await pathPair(c);
    return pair ? requirementsPage(c, pair) : noSuchPair(c);
  })
  .post("/catalog/:country_code/:number_type/requirements", changeGuard("setCatalogRequirements"), async (c) => {
    const pair = await pathPair(c);
    if (!pair) return noSuchPair(c);
    const form = await readForm(c);
    const posted = postedRequirements(form.fields, form.list);
    const parsed = requirementsBody.safeParse(posted.body);
    if (!parsed.success) {
      const errors = requirementsErrors(parsed.error.issues);
      const said = { kind: "error", text: "Nothing was saved; each problem is shown beside its field." } as const;
      return requirementsPage(c, pair, { values: posted.values, errors, said }, 400);
    }
    const written = await setRequirements(workOf(c), pair, toRequirements(parsed.data));
    if (!written.ok) {
      return requirementsPage(c, pair, { values: posted.values, said: refusal(written.problem) }, written.problem.status);
    }
    return c.redirect(`${pairPath(pair)}/requirements?done=requirements`, 303);
  })
  .post("/catalog/:country_code/:number_type/requirements/remove", changeGuard("removeCatalogRequirements"), async (c) => {
    const pair = await pathPair(c);
    if (!pair) return noSuchPair(c);
    const removed = await removeRequirements(workOf(c), pair);
    if (!removed.ok) return requirementsPage(c, pair, { said: refusal(removed.problem) }, removed.problem.status);
    return c.redirect(`${pairPath(pair)}/requirements?done=unrequired`, 303);
  });

// ---------------------------------------------------------------------------------------------------------------------
// Staff

const STAFF = "/ops/staff";
const STAFF_DONE: Record<string, string> = { saved: "The staff member is saved." };

async function staffPage(c: C, form: PostedForm = {}, status = 200) {
  const window = listWindow(c);
  const { rows, total } = await listStaff(c.var.db, window);
  const meta = pageMeta(window, total);
  const admin = mayChange(c.var.operator, "putStaff");
  // "Change" on a row fills the form with that member.
  const editing = form.values ? undefined : c.req.query("email");
  const chosen = editing ? await findStaff(c.var.db, editing) : undefined;
  const values =
    form.values ?? (chosen ? { email: chosen.email, name: chosen.name, role: chosen.role, status: chosen.status } : {});
  const errors = form.errors ?? {};
  return renderPage(
    c,
    { title: "Staff", section: "staff" },
    <>
      <h1>Staff</h1>
      {noticeOf(c, STAFF_DONE, form.said)}
      <Table
        label="Staff"
        rows={rows}
        columns={[
          { label: "E-mail", cell: (row) => row.email },
          { label: "Name", cell: (row) => row.name },
          { label: "Role", cell: (row) => capitalised(row.role) },
          { label: "Status", cell: (row) => <Badge status={row.status} /> },
          { label: "Changed", cell: (row) => dateTime(row.updatedAt) },
          ...(admin
            ? [
                {
                  label: "Action",
                  cell: (row: { email: string }) => (
                    <a href={`${STAFF}?email=${encodeURIComponent(row.email)}#member`} aria-label={`Change ${row.email}`}>
                      Change
                    </a>
                  ),
                },
              ]
            : []),
        ]}
      />
      <Pager meta={meta} noun="member" hrefOf={(n) => `${STAFF}?page=${n}`} />
      {admin ? (
        <form method="post" action={STAFF} class="card stack" id="member" novalidate>
          <h2>Add or change a member</h2>
          <CsrfField token={c.var.csrfToken} />
          <TextInput
            name="email"
            label="E-mail"
            type="email"
            required
            value={values.email}
            error={errors.email}
            hint="The e-mail their Cloudflare Access sign-in carries."
          />
          <TextInput name="name" label="Name" required value={values.name} error={errors.name} />
          <Select
            name="role"
            label="Role"
            value={values.role ?? "viewer"}
            options={STAFF_ROLES.map((role) => [role, capitalised(role)] as const)}
            error={errors.role}
          />
          <Select
            name="status"
            label="Status"
            value={values.status ?? "enabled"}
            options={STAFF_STATUSES.map((status) => [status, capitalised(status)] as const)}
            error={errors.status}
            hint="A disabled member is refused; nobody is deleted, so the audit log keeps its people."
          />
          <div>
            <button type="submit">Save staff member</button>
          </div>
        </form>
      ) : null}
    </>,
    status,
  );
}

const staffRoutes = createRouter<ConsoleEnv>()
  .get("/staff", (c) => staffPage(c))
  .post("/staff", changeGuard("putStaff"), async (c) => {
    const values = (await readForm(c)).fields;
    const email = staffEmailParams.safeParse({ email: (values.email ?? "").trim() });
    const settings = putStaffBody.safeParse({ name: values.name ?? "", role: values.role ?? "", status: values.status ?? "" });
    if (!email.success || !settings.success) {
      const errors = {
        ...(email.success ? {} : fieldMessages(email.error.issues)),
        ...(settings.success ? {} : fieldMessages(settings.error.issues)),
      };
      return staffPage(c, { values, errors }, 400);
    }
    const put = await setStaff(workOf(c), email.data.email, settings.data);
    if (!put.ok) return staffPage(c, { values, said: refusal(put.problem) }, put.problem.status);
    return c.redirect(`${STAFF}?done=saved`, 303);
  });

// ---------------------------------------------------------------------------------------------------------------------
// Audit log

const AUDIT = "/ops/audit";

function AuditFilters({ values, errors }: { values: Messages; errors: Messages }) {
  return (
    <FilterForm action={AUDIT} values={values}>
      <TextInput
        name="actor"
        label="Who"
        value={values.actor}
        error={errors.actor}
        hint="An e-mail, or token for the admin token"
      />
      <AuditKindFilters values={values} errors={errors} ofAccount={false} />
      <TextInput
        name="target_id"
        label="About which"
        value={values.target_id}
        error={errors.target_id}
        hint="As the API names it: an id (kyc_…, we_…), a slug, an e-mail or a phone number"
      />
      <TextInput name="customer_slug" label="Account" value={values.customer_slug} error={errors.customer_slug} hint="Its slug" />
      <TextInput name="from" label="From" type="date" value={values.from} error={errors.from} />
      <TextInput name="to" label="To" type="date" value={values.to} error={errors.to} />
      <PerPageField values={values} errors={errors} />
    </FilterForm>
  );
}

/** The console's page of what a change is about, where it has one. */
const consoleHref: TargetHref = ({ type, id }) => {
  switch (type) {
    case "order":
      return `/ops/orders/${id}`;
    case "customer":
      return `${ACCOUNTS}/${id}`;
    case "kyc":
      return `/ops/reviews/kyc/${id}`;
    case "kyc_profile":
      return `/ops/reviews/profiles/${id}`;
    case "stock_import":
      return `${STOCK}?import_id=${id}`;
    default:
      return undefined;
  }
};

async function auditPage(c: C) {
  const page = { title: "Audit log", section: "audit" };
  const filters = listFilters(c, operatorAuditQuery, page, AuditFilters);
  if ("answer" in filters) return filters.answer;
  const { raw, query } = filters;
  const window = pageWindow(query.page, query.limit);
  const { rows, total } = await listAuditEvents(c.var.db, toAuditListQuery(query), window);
  const names = await auditNames(c.var.db, rows);
  const meta = pageMeta(window, total);
  const events = rows.map((row) => toAuditEvent(row));
  return renderPage(
    c,
    page,
    <>
      <h1>Audit log</h1>
      <p class="muted">Every change, by anyone, newest first. Nothing here can be changed or deleted.</p>
      <AuditFilters values={raw} errors={{}} />
      {events.length === 0 ? (
        <div class="card empty">
          <p>No events match.</p>
        </div>
      ) : (
        <AuditLog
          label="Audit events"
          events={events}
          names={names}
          hrefOf={consoleHref}
          account={(event) =>
            event.customer_slug ? (
              <a href={`${ACCOUNTS}/${event.customer_slug}`}>{event.customer_slug}</a>
            ) : (
              <span class="muted">—</span>
            )
          }
        />
      )}
      <Pager meta={meta} noun="event" hrefOf={(n) => `${AUDIT}${withQuery(raw, { page: String(n) })}`} />
    </>,
  );
}

const auditRoutes = createRouter<ConsoleEnv>().get("/audit", (c) => auditPage(c));

// ---------------------------------------------------------------------------------------------------------------------
// Accounts

const ACCOUNTS = "/ops/accounts";
const ACCOUNT_DONE: Record<string, string> = {
  opened: "The account is open. Create its first API key or invite its first user below.",
  revoked: "The key is revoked: the API refuses it from now on.",
};
/** The users an account's page lists. */
const USERS_SHOWN = 100;
/** The recent orders an account's page shows. */
const RECENT_ORDERS = 10;

async function accountsPage(c: C, form: PostedForm = {}, status = 200) {
  const window = listWindow(c);
  const { rows, total } = await listCustomers(c.var.db, window);
  const meta = pageMeta(window, total);
  const values = form.values ?? {};
  const errors = form.errors ?? {};
  return renderPage(
    c,
    { title: "Accounts", section: "accounts" },
    <>
      <h1>Accounts</h1>
      {noticeOf(c, {}, form.said)}
      {mayChange(c.var.operator, "createCustomer") ? (
        <form method="post" action={ACCOUNTS} class="card filters" aria-label="Open an account" novalidate>
          <CsrfField token={c.var.csrfToken} />
          <TextInput
            name="slug"
            label="Slug"
            required
            value={values.slug}
            error={errors.slug}
            hint="Its name in the API's paths, e.g. acme-telecom; never changes"
          />
          <TextInput
            name="name"
            label="Name"
            required
            maxlength={MAX_NAME_LENGTH}
            value={values.name}
            error={errors.name}
            hint="As people read it, e.g. Acme Telecom"
          />
          <div class="actions">
            <button type="submit">Open account</button>
          </div>
        </form>
      ) : null}
      {rows.length === 0 ? (
        <div class="card empty">
          <p>No accounts yet.</p>
        </div>
      ) : (
        <Table
          label="Accounts"
          rows={rows}
          columns={[
            { label: "Slug", cell: (row) => <a href={`${ACCOUNTS}/${row.slug}`}>{row.slug}</a> },
            { label: "Name", cell: (row) => row.name },
            { label: "Opened", cell: (row) => dateTime(row.createdAt) },
          ]}
        />
      )}
      <Pager meta={meta} noun="account" hrefOf={(n) => `${ACCOUNTS}?page=${n}`} />
    </>,
    status,
  );
}

/**
 * What a key's or an invitation's POST leaves for the account's page it redirects to, shown there once: the new key, or
 * the invitation link (neither is stored in the clear, so neither can be shown again).
 */
interface AccountShown {
  /** The account whose page shows it (another account's page shows nothing of it). */
  slug: string;
  newKey?: { name: string; key: string };
  invited?: { email: string; url: string; expiresAt: string };
}
/** The cookie that carries a new key or invitation link to the account's page after the redirect. */
const ACCOUNT_SHOWN = "vn_once_account";

interface AccountState extends Omit<AccountShown, "slug"> {
  said?: NoticeText;
  key?: { values: Messages; errors: Messages };
  user?: { values: Messages; errors: Messages };
}

async function accountPage(c: C, customer: CustomerRow, state: AccountState = {}, status = 200) {
  const { db } = c.var;
  const orderQuery = listOrdersQuery.parse({ sort_by: "requested_at", sort_order: "desc", limit: String(RECENT_ORDERS) });
  const [keys, team, orders] = await Promise.all([
    listApiKeys(db, customer.slug, pageWindow(1, 100)),
    listTeam(db, customer.id, toTeamListQuery(teamListQuery.parse({ limit: String(USERS_SHOWN) })), pageWindow(1, USERS_SHOWN)),
    listOrders(db, customer.id, toOrderListQuery(orderQuery), pageWindow(1, RECENT_ORDERS)),
  ]);
  const keyRows = keys.ok ? keys.value.rows : [];
  const mayCreateKey = mayChange(c.var.operator, "createApiKey");
  const mayRevoke = mayChange(c.var.operator, "revokeApiKey");
  const mayInvite = mayChange(c.var.operator, "createUser");
  const base = `${ACCOUNTS}/${customer.slug}`;
  const keyForm = state.key ?? { values: {}, errors: {} };
  const userForm = state.user ?? { values: {}, errors: {} };
  return renderPage(
    c,
    { title: customer.name, section: "accounts" },
    <>
      <p>
        <a href={ACCOUNTS}>← Accounts</a>
      </p>
      <h1>{customer.name}</h1>
      {noticeOf(c, ACCOUNT_DONE, state.said)}
      <dl class="facts card">
        <dt>Slug</dt>
        <dd>
          <code>{customer.slug}</code>
        </dd>
        <dt>Id</dt>
        <dd>
          <code>{customer.id}</code>
        </dd>
        <dt>Opened</dt>
        <dd>{dateTime(customer.createdAt)}</dd>
      </dl>

      <section class="work">
        <h2>API keys</h2>
        {state.newKey ? (
          <div class="card">
            <Notice kind="success">The key “{state.newKey.name}” is created. Copy it now: it is never shown again.</Notice>
            <p class="secret">{state.newKey.key}</p>
          </div>
        ) : null}
        {keyRows.length === 0 ? (
          <p class="muted">No keys.</p>
        ) : (
          <Table
            label="API keys"
            rows={keyRows}
            columns={[
              { label: "Name", cell: (key) => key.name },
              {
                label: "Key",
                cell: (key) => (
                  <code>
                    {key.prefix}…{key.lastFour}
                  </code>
                ),
              },
              { label: "Created", cell: (key) => dateTime(key.createdAt) },
              { label: "Last used", cell: (key) => dateTime(key.lastUsedAt) },
              { label: "Status", cell: (key) => <Badge status={key.revokedAt === null ? "active" : "revoked"} /> },
              ...(mayRevoke
                ? [
                    {
                      label: "Action",
                      cell: (key: { id: string; name: string; revokedAt: number | null }) =>
                        key.revokedAt === null ? (
                          <a href={`${base}/keys/${key.id}/revoke`} aria-label={`Revoke ${key.name}…`}>
                            Revoke…
                          </a>
                        ) : (
                          <span class="muted">revoked</span>
                        ),
                    },
                  ]
                : []),
            ]}
          />
        )}
        {mayCreateKey ? (
          <form method="post" action={`${base}/keys`} class="card filters" aria-label="New API key">
            <CsrfField token={c.var.csrfToken} />
            <TextInput
              name="name"
              id="key-name"
              label="Key name"
              required
              maxlength={MAX_NAME_LENGTH}
              value={keyForm.values.name}
              error={keyForm.errors.name}
            />
            <div class="actions">
              <button type="submit">Create key</button>
            </div>
          </form>
        ) : null}
      </section>

      <section class="work">
        <h2>Users</h2>
        {state.invited ? (
          <div class="card">
            <Notice kind="success">
              {state.invited.email} is invited. Send them this link to set their password (single use, until{" "}
              {dateTime(state.invited.expiresAt)}); it is not shown again.
            </Notice>
            <p class="secret">{state.invited.url}</p>
          </div>
        ) : null}
        {team.rows.length === 0 ? (
          <p class="muted">No users.</p>
        ) : (
          <>
            <p class="muted">
              {plural(team.total, "user")}:{" "}
              {TEAM_STATUSES.filter((status) => team.statusCounts[status] > 0)
                .map((status) => `${team.statusCounts[status]} ${words(status)}`)
                .join(", ")}
              .{team.total > team.rows.length ? ` The first ${team.rows.length} are listed.` : ""}
            </p>
            <Table
              label="Users"
              rows={team.rows}
              columns={[
                { label: "E-mail", cell: (user) => user.email },
                { label: "Name", cell: (user) => user.name },
                { label: "Role", cell: (user) => capitalised(user.role) },
                { label: "Status", cell: (user) => <UserStatus user={user} /> },
                { label: "Last sign-in", cell: (user) => dateTime(user.lastLoginAt) },
              ]}
            />
          </>
        )}
        {mayInvite ? (
          <form method="post" action={`${base}/users`} class="card filters" aria-label="Invite a user" novalidate>
            <CsrfField token={c.var.csrfToken} />
            <TextInput
              name="email"
              id="user-email"
              label="User's e-mail"
              type="email"
              required
              value={userForm.values.email}
              error={userForm.errors.email}
            />
            <TextInput
              name="name"
              id="user-name"
              label="User's name"
              required
              value={userForm.values.name}
              error={userForm.errors.name}
            />
            <Select
              name="role"
              id="user-role"
              label="User's role"
              value={userForm.values.role ?? "member"}
              options={USER_ROLES.map((role) => [role, capitalised(role)] as const)}
              error={userForm.errors.role}
            />
            <div class="actions">
              <button type="submit">Invite user</button>
            </div>
          </form>
        ) : null}
      </section>

      <section class="work">
        <h2>Recent orders</h2>
        {orders.rows.length === 0 ? (
          <p class="muted">No orders.</p>
        ) : (
          <Table
            label="Recent orders"
            rows={orders.rows.map(toOrder)}
            columns={[
              { label: "Order", cell: (order) => <a href={`/ops/orders/${order.order_id}`}>{order.order_number}</a> },
              { label: "Pair", cell: (order) => `${order.country_code} ${words(order.number_type)}` },
              { label: "Quantity", cell: (order) => String(order.quantity) },
              { label: "Status", cell: (order) => <Badge status={order.status} /> },
              { label: "Requested", cell: (order) => dateTime(order.requested_at) },
            ]}
          />
        )}
        <p class="muted">{plural(orders.total, "order")} in all.</p>
      </section>
    </>,
    status,
  );
}

/** The account a path's slug names. */
async function pathAccount(c: C): Promise<CustomerRow | undefined> {
  const parsed = slugParams.safeParse({ slug: c.req.param("slug") });
  return parsed.success ? findCustomerBySlug(c.var.db, parsed.data.slug) : undefined;
}

/** Leaves `shown` for the account's page and redirects there (303), so a reload creates nothing again. */
async function redirectToAccount(c: C, shown: AccountShown) {
  await leaveAfterRedirect(c, staffNote(c, ACCOUNT_SHOWN), shown);
  return c.redirect(`${ACCOUNTS}/${shown.slug}`, 303);
}

function noSuchAccount(c: C) {
  return notFoundPage(c, { what: "Account", section: "accounts", back: { href: ACCOUNTS, label: "Back to the accounts" } });
}

const accountRoutes = createRouter<ConsoleEnv>()
  .get("/accounts", (c) => accountsPage(c))
  .post("/accounts", changeGuard("createCustomer"), async (c) => {
    const values = (await readForm(c)).fields;
    const parsed = createCustomerBody.safeParse({ slug: (values.slug ?? "").trim(), name: values.name ?? "" });
    if (!parsed.success) return accountsPage(c, { values, errors: fieldMessages(parsed.error.issues) }, 400);
    const opened = await openAccount(workOf(c), parsed.data);
    if (!opened.ok) return accountsPage(c, { values, said: refusal(opened.problem) }, opened.problem.status);
    return c.redirect(`${ACCOUNTS}/${opened.value.slug}?done=opened`, 303);
  })
  .get("/accounts/:slug", async (c) => {
    const customer = await pathAccount(c);
    if (!customer) return noSuchAccount(c);
    const shown = await takeAfterRedirect<AccountShown>(c, staffNote(c, ACCOUNT_SHOWN));
    return accountPage(c, customer, shown?.slug === customer.slug ? shown : {});
  })
  .post("/accounts/:slug/keys", changeGuard("createApiKey"), async (c) => {
    const customer = await pathAccount(c);
    if (!customer) return noSuchAccount(c);
    const values = (await readForm(c)).fields;
    const parsed = createApiKeyBody.safeParse({ name: values.name ?? "" });
    if (!parsed.success) return accountPage(c, customer, { key: { values, errors: fieldMessages(parsed.error.issues) } }, 400);
    const created = await issueApiKey(workOf(c), customer.slug, parsed.data.name);
    if (!created.ok) return accountPage(c, customer, { said: refusal(created.problem) }, created.problem.status);
    const newKey = { name: created.value.row.name, key: created.value.key };
    return redirectToAccount(c, { slug: customer.slug, newKey });
  })
  .get("/accounts/:slug/keys/:id/revoke", changeGuard("revokeApiKey"), async (c) => {
    const customer = await pathAccount(c);
    if (!customer) return noSuchAccount(c);
    const key = await findApiKey(c.var.db, c.req.param("id"));
    const base = `${ACCOUNTS}/${customer.slug}`;
    if (key?.customerId !== customer.id) {
      return notFoundPage(c, { what: "API key", section: "accounts", back: { href: base, label: `Back to ${customer.name}` } });
    }
    return renderPage(
      c,
      { title: "Revoke an API key", section: "accounts" },
      <Confirmation
        token={c.var.csrfToken}
        title={`Revoke the key “${key.name}” of ${customer.name}?`}
        action={`${base}/keys/${key.id}/revoke`}
        button="Revoke the key"
        cancel={base}
      >
        <p>The API refuses the key at once and for good: the account's programs that use it stop working.</p>
      </Confirmation>,
    );
  })
  .post("/accounts/:slug/keys/:id/revoke", changeGuard("revokeApiKey"), async (c) => {
    const customer = await pathAccount(c);
    if (!customer) return noSuchAccount(c);
    const revoked = await revokeKey(workOf(c), c.req.param("id"), customer.id);
    if (!revoked.ok) return accountPage(c, customer, { said: refusal(revoked.problem) }, revoked.problem.status);
    return c.redirect(`${ACCOUNTS}/${customer.slug}?done=revoked`, 303);
  })
  .post("/accounts/:slug/users", changeGuard("createUser"), async (c) => {
    const customer = await pathAccount(c);
    if (!customer) return noSuchAccount(c);
    const values = (await readForm(c)).fields;
    const parsed = createUserBody.safeParse({
      email: (values.email ?? "").trim(),
      name: values.name ?? "",
      role: values.role ?? "",
    });
    if (!parsed.success) return accountPage(c, customer, { user: { values, errors: fieldMessages(parsed.error.issues) } }, 400);
    const added = await addUser(workOf(c), customer.slug, parsed.data);
    if (!added.ok) {
      return accountPage(
        c,
        customer,
        { user: { values, errors: problemFields(added.problem) }, said: refusal(added.problem) },
        added.problem.status,
      );
    }
    const invitation = toInvitation(publicOrigin(c), added.value.token, added.value.expiresAt);
    const invited = {
      email: added.value.user.email,
      url: invitation.invitation_url,
      expiresAt: invitation.invitation_expires_at,
    };
    return redirectToAccount(c, { slug: customer.slug, invited });
  });

/** The console's stock, catalog, staff, audit and accounts pages, mounted under /ops. */
export const adminPages = createRouter<ConsoleEnv>()
  .route("/", stockRoutes)
  .route("/", catalogRoutes)
  .route("/", staffRoutes)
  .route("/", auditRoutes)
  .route("/", accountRoutes);
