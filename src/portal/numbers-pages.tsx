// The portal's Numbers list, and attaching selected numbers to a profile.
import type { Context } from "hono";
import { listOrderablePairs } from "../catalog/store.ts";
import { pageWindow } from "../db/paging.ts";
import { NUMBER_STATUSES, type OrderRow } from "../db/schema.ts";
import type { PortalEnv } from "../env.ts";
import { prefixedIdParam } from "../http/fields.ts";
import { pageMeta } from "../http/pagination.ts";
import { workOf } from "../http/request-context.ts";
import { createRouter } from "../http/router.ts";
import { profileNumbersBody } from "../kyc/schemas.ts";
import { attachToProfile } from "../kyc/use-cases.ts";
import type { Problem } from "../lib/problem.ts";
import { words } from "../lib/words.ts";
import { listNumbersQuery, toNumber, toNumberListQuery } from "../numbers/schemas.ts";
import { listNumbers } from "../numbers/store.ts";
import { Badge, type Column, CsrfField, FieldError, Notice, Pager, Table, Time } from "../ui/components.tsx";
import { date, withQuery } from "../ui/format.ts";
import { DayRangeFields, fieldMessages, PerPageField, parseIdField, readForm, SortFields, TextInput } from "../ui/forms.tsx";
import { FilterForm, type FilterPair, listFilters, PairFilterFields, StatusFilterField } from "../ui/list-filters.tsx";
import { renderPage } from "../ui/renderer.tsx";
import { type ProfileChoices, ProfileSelect, profileChoices } from "./kyc-parts.tsx";
import { MAX_SELECTED, MoveReportCard, takeMoveReport } from "./number-life-parts.tsx";
import { redirectWithReport } from "./numbers-report.tsx";
import { OrderSelect, orderChoices } from "./order-choices.tsx";
import { profileHref } from "./profiles-pages.tsx";

type Messages = Record<string, string>;

/** A numbers table's first columns: a checkbox per number (`number_ids`, ticked when in `checked`), then the number. */
export function selectableNumberColumns(checked: ReadonlySet<string> = new Set()): Column<ReturnType<typeof toNumber>>[] {
  return [
    {
      label: "Select",
      cell: (n) => (
        <label class="check">
          <input type="checkbox" name="number_ids" value={n.number_id} checked={checked.has(n.number_id)} />
          <span class="visually-hidden">Select {n.phone_number}</span>
        </label>
      ),
    },
    { label: "Number", cell: (n) => <a href={`/portal/numbers/${n.number_id}`}>{n.phone_number}</a> },
    { label: "Country", cell: (n) => n.country_code },
    { label: "Type", cell: (n) => words(n.number_type) },
    {
      label: "Status",
      cell: (n) => (
        <>
          <Badge status={n.status} />
          {n.restorable_until ? (
            <span class="hint">
              {" "}
              restorable until <Time time={n.restorable_until} />
            </span>
          ) : null}
        </>
      ),
    },
  ];
}

const profileIdParam = prefixedIdParam("kyp", "profile_id");

function NumberFilters({
  values,
  errors,
  profiles,
  orders,
  pairs,
}: {
  values: Record<string, string>;
  errors: Messages;
  profiles: ProfileChoices;
  orders: readonly OrderRow[];
  pairs: readonly FilterPair[];
}) {
  return (
    <FilterForm action="/portal/numbers" values={values}>
      <TextInput name="search" label="Search" value={values.search} error={errors.search} hint="Digits of the number" />
      <StatusFilterField values={values} errors={errors} statuses={NUMBER_STATUSES} />
      <PairFilterFields values={values} errors={errors} pairs={pairs} />
      <ProfileSelect
        name="kyc_profile_id"
        label="Profile"
        value={values.kyc_profile_id}
        error={errors.kyc_profile_id}
        blank="Any"
        choices={profiles}
      />
      <OrderSelect name="order_id" label="Order" value={values.order_id} error={errors.order_id} blank="Any" orders={orders} />
      <TextInput name="tag" label="Tags" value={values.tag} error={errors.tag} hint="Comma separated; numbers with all of them" />
      <TextInput
        name="customer_reference"
        label="Your reference"
        value={values.customer_reference}
        error={errors.customer_reference}
      />
      <DayRangeFields name="released" label="Released" values={values} errors={errors} />
      <TextInput
        name="kyc_expires_before"
        label="Verification expires before"
        type="date"
        value={values.kyc_expires_before}
        error={errors.kyc_expires_before}
      />
      <SortFields query={listNumbersQuery} values={values} errors={errors} />
      <PerPageField values={values} errors={errors} />
    </FilterForm>
  );
}

/** The list's forms that act on the numbers selected (number-life-pages.tsx). */
export type ListAction = "release" | "restore" | "tags";

/** What a list form shows again when refused: which form, what was typed, the numbers checked, the errors. */
interface SelectionState {
  form: "attach" | ListAction;
  values: Record<string, string>;
  checked: readonly string[];
  errors: Record<string, string>;
  /** A use case's refusal of the whole, in its words and with its status. */
  refusal?: Problem;
}

/**
 * The list: filters, then the numbers in a form whose check boxes select numbers to attach to a chosen profile (the
 * attach use case, as the API's POST …/kyc-profiles/{id}/numbers).
 */
export async function numbersPage(c: Context<PortalEnv>, selection?: SelectionState) {
  const { db, visitor } = c.var;
  const choices = (values: Record<string, string>) =>
    Promise.all([
      profileChoices(db, visitor.customer.id),
      orderChoices(db, visitor.customer.id, values.order_id),
      listOrderablePairs(db),
    ]);
  const page = { title: "Numbers", section: "numbers" };
  // Filters that do not parse are shown again with the profiles and orders read then (an async component).
  const filters = listFilters(c, listNumbersQuery, page, async (props) => {
    const [profiles, orders, pairs] = await choices(props.values);
    return <NumberFilters {...props} profiles={profiles} orders={orders} pairs={pairs} />;
  });
  if ("answer" in filters) return filters.answer;
  const { raw, query } = filters;
  const window = pageWindow(query.page, query.limit);
  const [[profiles, orders, pairs], list] = await Promise.all([
    choices(raw),
    listNumbers(db, visitor.customer.id, toNumberListQuery(query), window),
  ]);
  const meta = pageMeta(window, list.total);
  const here = new URLSearchParams(raw).toString();
  const checked = new Set(selection?.checked ?? []);
  const listQuery = here ? `?${here}` : "";
  const report = selection ? undefined : await takeMoveReport(c);
  const errorsOf = (form: SelectionState["form"]) => (selection?.form === form ? selection.errors : {});
  const valuesOf = (form: SelectionState["form"]) => (selection?.form === form ? selection.values : {});
  const acting = selection?.form === "attach" ? undefined : selection;
  const selectionError = (form: SelectionState["form"]) => errorsOf(form).number_ids && `Numbers ${errorsOf(form).number_ids}`;
  return renderPage(
    c,
    page,
    <>
      <h1>Numbers</h1>
      {selection ? (
        <Notice kind="error">
          {selection.refusal?.message ??
            `Nothing was ${selection.form === "attach" ? "attached" : "changed"}; the problem is shown beside its field.`}
        </Notice>
      ) : null}
      {report ? <MoveReportCard note={report} /> : null}
      <NumberFilters values={raw} errors={{}} profiles={profiles} orders={orders} pairs={pairs} />
      <p class="actions">
        <a href={`/portal/numbers/export${listQuery}`} download>
          Export these numbers (CSV)
        </a>
      </p>
      {list.rows.length === 0 ? (
        <div class="card empty">
          <p>
            No numbers match. Numbers arrive when an order is fulfilled: <a href="/portal/orders/new">place an order</a>.
          </p>
        </div>
      ) : (
        <form method="post" action={`/portal/numbers/attach${listQuery}`} novalidate>
          <CsrfField token={visitor.csrfToken} />
          <Table
            label="Numbers"
            rows={list.rows.map(toNumber)}
            columns={[
              ...selectableNumberColumns(checked),
              { label: "Tags", cell: (n) => (n.tags.length > 0 ? n.tags.join(", ") : <span class="muted">none</span>) },
              {
                label: "Verification",
                cell: (n) => (n.kyc_status ? <Badge status={n.kyc_status} /> : <span class="muted">not submitted</span>),
              },
              {
                label: "Profile",
                cell: (n) =>
                  n.kyc_profile_id ? (
                    <a href={`/portal/profiles/${n.kyc_profile_id}`}>
                      {profiles.names.get(n.kyc_profile_id) ?? n.kyc_profile_id}
                    </a>
                  ) : (
                    <span class="muted">none</span>
                  ),
              },
              { label: "Since", cell: (n) => date(n.created_at) },
            ]}
          />
          <div class="card stack selection" id="act">
            <h2>Release, restore or tag numbers</h2>
            <fieldset class="checks" aria-describedby={acting?.errors.number_ids ? "act-number_ids-error" : undefined}>
              <legend>Which numbers</legend>
              <label class="check">
                <input type="radio" name="scope" value="checked" checked={acting?.values.scope !== "matching"} />
                The numbers checked above
              </label>
              <label class="check">
                <input type="radio" name="scope" value="matching" checked={acting?.values.scope === "matching"} />
                Every number the filters match ({Math.min(list.total, MAX_SELECTED).toLocaleString("en-US")}
                {list.total > MAX_SELECTED ? ` of ${list.total.toLocaleString("en-US")}: at most 1,000` : ""})
              </label>
            </fieldset>
            <FieldError id="act-number_ids-error" message={acting ? selectionError(acting.form) : undefined} />
            <div class="actions">
              <button type="submit" formaction={`/portal/numbers/release/preview${listQuery}`}>
                Release…
              </button>
              <button type="submit" formaction={`/portal/numbers/restore${listQuery}`}>
                Restore
              </button>
            </div>
            <TextInput
              name="tags"
              label="Tags to add or remove"
              value={valuesOf("tags").tags}
              error={errorsOf("tags").tags}
              hint="Separated by commas"
            />
            <div class="actions">
              <button type="submit" name="tag_change" value="add" formaction={`/portal/numbers/tags${listQuery}`}>
                Add tags
              </button>
              <button type="submit" name="tag_change" value="remove" formaction={`/portal/numbers/tags${listQuery}`}>
                Remove tags
              </button>
            </div>
          </div>
          <div class="card stack selection">
            <h2>Attach the selected numbers to a profile</h2>
            <p class="hint muted">
              A number joins only a profile that meets its country's and type's requirements, and only without a verification of
              its own.
            </p>
            <ProfileSelect
              name="profile_id"
              label="Attach to profile"
              value={valuesOf("attach").profile_id}
              error={errorsOf("attach").profile_id}
              blank="Choose a profile"
              choices={profiles}
            />
            <FieldError id="number_ids-error" message={selectionError("attach")} />
            <div class="actions">
              <button type="submit">Attach the selected numbers</button>
              {profiles.options?.length === 0 ? (
                <span class="muted">
                  No profiles yet: <a href="/portal/profiles/new">create one</a>.
                </span>
              ) : null}
            </div>
          </div>
        </form>
      )}
      <Pager meta={meta} noun="number" hrefOf={(page) => `/portal/numbers${withQuery(raw, { page: String(page) })}`} />
    </>,
    selection ? (selection.refusal?.status ?? 400) : 200,
  );
}
/** The numbers list and its attach form, mounted under /portal. */
export const numberPages = createRouter<PortalEnv>()
  .get("/numbers", (c) => numbersPage(c))
  .post("/numbers/attach", async (c) => {
    const form = await readForm(c);
    const profileId = form.fields.profile_id ?? "";
    const numberIds = form.list("number_ids");
    const refused = (errors: Record<string, string>, refusal?: Problem) =>
      numbersPage(c, {
        form: "attach",
        values: form.fields,
        checked: numberIds,
        errors,
        ...(refusal === undefined ? {} : { refusal }),
      });
    // Judged by the API's own schemas: the profile's id, and the numbers' ids as its attach body takes them.
    const profile = parseIdField(profileIdParam, profileId);
    const numbers = profileNumbersBody.safeParse({ number_ids: numberIds });
    const errors: Record<string, string> = {};
    if ("error" in profile) errors.profile_id = profile.error;
    if (!numbers.success) errors.number_ids = fieldMessages(numbers.error.issues).number_ids ?? "are not valid";
    if ("error" in profile || !numbers.success) return refused(errors);
    const selection = { numberIds: numbers.data.number_ids ?? [] };
    const attached = await attachToProfile(workOf(c), c.var.visitor.customer.id, profile.id, selection);
    if (!attached.ok) return refused({}, attached.problem);
    return redirectWithReport(c, profileHref(profile.id), { profileId: profile.id, kind: "attach", report: attached.value });
  });
