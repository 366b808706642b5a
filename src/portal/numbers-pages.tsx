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
import { capitalised, words } from "../lib/words.ts";
import { listNumbersQuery, toNumber, toNumberListQuery } from "../numbers/schemas.ts";
import { listNumbers } from "../numbers/store.ts";
import { Badge, type Column, CsrfField, FieldError, Notice, Pager, Table } from "../ui/components.tsx";
import { date, withQuery } from "../ui/format.ts";
import {
  FilterForm,
  type FilterPair,
  fieldMessages,
  listFilters,
  MultiChoice,
  PairFilterFields,
  PerPageField,
  parseIdField,
  readForm,
  SortFields,
  TextInput,
} from "../ui/forms.tsx";
import { renderPage } from "../ui/renderer.tsx";
import { type ProfileChoices, ProfileSelect, profileChoices } from "./kyc-parts.tsx";
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
    { label: "Status", cell: (n) => <Badge status={n.status} /> },
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
      <MultiChoice
        name="status"
        label="Statuses"
        value={values.status}
        error={errors.status}
        options={NUMBER_STATUSES.map((status) => [status, capitalised(status)] as const)}
      />
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

/** What the list's attach form shows again when refused: the profile chosen, the numbers checked, the error. */
interface SelectionState {
  profileId: string;
  checked: readonly string[];
  errors: Record<string, string>;
  /** A use case's refusal of the whole, in its words and with its status. */
  refusal?: Problem;
}

/**
 * The list: filters, then the numbers in a form whose check boxes select numbers to attach to a chosen profile (the
 * attach use case, as the API's POST …/kyc-profiles/{id}/numbers).
 */
async function numbersPage(c: Context<PortalEnv>, selection?: SelectionState) {
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
  return renderPage(
    c,
    page,
    <>
      <h1>Numbers</h1>
      {selection ? (
        <Notice kind="error">
          {selection.refusal?.message ?? "Nothing was attached; the problem is shown beside its field."}
        </Notice>
      ) : null}
      <NumberFilters values={raw} errors={{}} profiles={profiles} orders={orders} pairs={pairs} />
      {list.rows.length === 0 ? (
        <div class="card empty">
          <p>
            No numbers match. Numbers arrive when an order is fulfilled: <a href="/portal/orders/new">place an order</a>.
          </p>
        </div>
      ) : (
        <form method="post" action={`/portal/numbers/attach${here ? `?${here}` : ""}`} novalidate>
          <CsrfField token={visitor.csrfToken} />
          <Table
            label="Numbers"
            rows={list.rows.map(toNumber)}
            columns={[
              ...selectableNumberColumns(checked),
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
          <div class="card stack selection">
            <h2>Attach the selected numbers to a profile</h2>
            <p class="hint muted">
              A number joins only a profile that meets its country's and type's requirements, and only without a verification of
              its own.
            </p>
            <ProfileSelect
              name="profile_id"
              label="Attach to profile"
              value={selection?.profileId}
              error={selection?.errors.profile_id}
              blank="Choose a profile"
              choices={profiles}
            />
            <FieldError
              id="number_ids-error"
              message={selection?.errors.number_ids && `Numbers ${selection.errors.number_ids}`}
            />
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
      numbersPage(c, { profileId, checked: numberIds, errors, ...(refusal === undefined ? {} : { refusal }) });
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
