// Console pages for the orderable catalog and each pair's requirements.
import type { Context } from "hono";
import {
  catalogPairParams,
  catalogSettingsBody,
  newCatalogPairParams,
  requirementsBody,
  toRequirements,
  toSettingsChange,
} from "../catalog/schemas.ts";
import { type CatalogItem, findCatalogPair, listCatalog } from "../catalog/store.ts";
import {
  addCatalogPairAction,
  removeCatalogPairAction,
  removeRequirementsAction,
  setRequirementsAction,
} from "../catalog/use-cases.ts";
import type { CatalogRow, Requirements } from "../db/schema.ts";
import type { ConsoleEnv } from "../env.ts";
import { pageMeta } from "../http/pagination.ts";
import { workOf } from "../http/request-context.ts";
import { createRouter } from "../http/router.ts";
import { words } from "../lib/words.ts";
import { changeGuard, mayChange } from "../staff/roles.ts";
import { Confirmation, CsrfField, type NoticeText, Pager, Table } from "../ui/components.tsx";
import { notFoundPage } from "../ui/error-page.tsx";
import { dateTime, plural } from "../ui/format.ts";
import { fieldMessages, formInteger, readForm, TextInput } from "../ui/forms.tsx";
import { withCountryCodesUppercased } from "../ui/list-filters.tsx";
import { renderPage } from "../ui/renderer.tsx";
import { listWindow, noticeOf, type PostedForm, refusal } from "./admin-common.tsx";
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

const CATALOG = "/ops/catalog";
const CATALOG_DONE: Record<string, string> = {
  added: "The pair is orderable.",
  already: "The pair was orderable already.",
  removed: "The pair is no longer orderable. Existing orders keep it.",
  requirements: "The requirements are saved.",
  unrequired: "The requirements are removed: numbers of the pair need no verification.",
  settings: "The settings are saved.",
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
  const mayAdd = mayChange(c.var.operator, addCatalogPairAction);
  const mayRemove = mayChange(c.var.operator, removeCatalogPairAction);
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
            { label: "Quarantine", cell: (row) => plural(row.quarantineDays, "day") },
            { label: "Auto-fulfil", cell: (row) => (row.autoFulfil ? "yes" : "no") },
            { label: "Since", cell: (row) => dateTime(row.createdAt) },
            {
              label: "Actions",
              cell: (row) => (
                <span class="actions">
                  <a href={`${pairPath(row)}/requirements`} aria-label={`Requirements of ${row.countryCode} ${row.numberType}`}>
                    Requirements
                  </a>
                  <a href={`${pairPath(row)}/settings`} aria-label={`Settings of ${row.countryCode} ${row.numberType}`}>
                    Settings
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
async function pathPair(c: C): Promise<CatalogItem | undefined> {
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
  const maySet = mayChange(c.var.operator, setRequirementsAction);
  const mayRemove = mayChange(c.var.operator, removeRequirementsAction);
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

/** A pair's settings: how long a released number waits before it is in stock again, and auto-fulfilment. */
async function settingsPage(c: C, pair: CatalogItem, form: PostedForm = {}, status = 200) {
  const mayEdit = mayChange(c.var.operator, addCatalogPairAction);
  const name = `${pair.countryCode} ${words(pair.numberType)}`;
  const values = form.values ?? { quarantine_days: String(pair.quarantineDays), auto_fulfil: String(pair.autoFulfil) };
  const errors = form.errors ?? {};
  return renderPage(
    c,
    { title: `Settings of ${name}`, section: "catalog" },
    <>
      <p>
        <a href={CATALOG}>← Catalog</a>
      </p>
      <h1>Settings of {name}</h1>
      {noticeOf(c, CATALOG_DONE, form.said)}
      <dl class="facts card">
        <dt>Quarantine</dt>
        <dd>{plural(pair.quarantineDays, "day")} after a released number's restore window, before it is in stock again</dd>
        <dt>Auto-fulfil</dt>
        <dd>{pair.autoFulfil ? "yes" : "no"}</dd>
      </dl>
      {mayEdit ? (
        <form method="post" action={`${pairPath(pair)}/settings`} class="card stack" aria-label="Settings" novalidate>
          <CsrfField token={c.var.csrfToken} />
          <TextInput
            name="quarantine_days"
            label="Quarantine days"
            type="number"
            min="0"
            value={values.quarantine_days}
            error={errors.quarantine_days}
            hint="Counted from the release; applies to numbers returned to stock from now on"
          />
          <label class="check">
            <input type="checkbox" name="auto_fulfil" value="true" checked={values.auto_fulfil === "true"} />
            Fulfil orders of the pair from stock at once (auto-fulfil)
          </label>
          <div>
            <button type="submit">Save settings</button>
          </div>
        </form>
      ) : null}
    </>,
    status,
  );
}

/** The catalog pages, mounted under /ops. */
export const catalogPages = createRouter<ConsoleEnv>()
  .get("/catalog", (c) => catalogPage(c))
  .post("/catalog/pairs", changeGuard(addCatalogPairAction), async (c) => {
    const values = withCountryCodesUppercased((await readForm(c)).fields, ["country_code"]);
    const parsed = newCatalogPairParams.safeParse({
      country_code: values.country_code ?? "",
      number_type: (values.number_type ?? "").trim(),
    });
    if (!parsed.success) return catalogPage(c, { values, errors: fieldMessages(parsed.error.issues) }, 400);
    const made = await addCatalogPairAction.run(workOf(c), {
      countryCode: parsed.data.country_code,
      numberType: parsed.data.number_type,
    });
    if (!made.ok) return catalogPage(c, { values, said: refusal(made.problem) }, made.problem.status);
    return c.redirect(`${CATALOG}?done=${made.value.created ? "added" : "already"}`, 303);
  })
  .get("/catalog/:country_code/:number_type/remove", changeGuard(removeCatalogPairAction), async (c) => {
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
  .post("/catalog/:country_code/:number_type/remove", changeGuard(removeCatalogPairAction), async (c) => {
    const pair = await pathPair(c);
    if (!pair) return noSuchPair(c);
    const stopped = await removeCatalogPairAction.run(workOf(c), pair);
    if (!stopped.ok) return catalogPage(c, { said: refusal(stopped.problem) }, stopped.problem.status);
    return c.redirect(`${CATALOG}?done=removed`, 303);
  })
  .get("/catalog/:country_code/:number_type/settings", async (c) => {
    const pair = await pathPair(c);
    return pair ? settingsPage(c, pair) : noSuchPair(c);
  })
  .post("/catalog/:country_code/:number_type/settings", changeGuard(addCatalogPairAction), async (c) => {
    const pair = await pathPair(c);
    if (!pair) return noSuchPair(c);
    const values = (await readForm(c)).fields;
    // An unticked box sends nothing: auto-fulfil off.
    const parsed = catalogSettingsBody.safeParse({
      quarantine_days: formInteger(values.quarantine_days),
      auto_fulfil: values.auto_fulfil === "true",
    });
    if (!parsed.success) return settingsPage(c, pair, { values, errors: fieldMessages(parsed.error.issues) }, 400);
    const saved = await addCatalogPairAction.run(workOf(c), pair, toSettingsChange(parsed.data));
    if (!saved.ok) return settingsPage(c, pair, { values, said: refusal(saved.problem) }, saved.problem.status);
    return c.redirect(`${pairPath(pair)}/settings?done=settings`, 303);
  })
  .get("/catalog/:country_code/:number_type/requirements", async (c) => {
    const pair = await pathPair(c);
    return pair ? requirementsPage(c, pair) : noSuchPair(c);
  })
  .post("/catalog/:country_code/:number_type/requirements", changeGuard(setRequirementsAction), async (c) => {
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
    const written = await setRequirementsAction.run(workOf(c), pair, toRequirements(parsed.data));
    if (!written.ok) {
      return requirementsPage(c, pair, { values: posted.values, said: refusal(written.problem) }, written.problem.status);
    }
    return c.redirect(`${pairPath(pair)}/requirements?done=requirements`, 303);
  })
  .post("/catalog/:country_code/:number_type/requirements/remove", changeGuard(removeRequirementsAction), async (c) => {
    const pair = await pathPair(c);
    if (!pair) return noSuchPair(c);
    const removed = await removeRequirementsAction.run(workOf(c), pair);
    if (!removed.ok) return requirementsPage(c, pair, { said: refusal(removed.problem) }, removed.problem.status);
    return c.redirect(`${pairPath(pair)}/requirements?done=unrequired`, 303);
  });
