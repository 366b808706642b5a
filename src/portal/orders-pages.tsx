// The portal's Orders pages. Changes go through src/orders/use-cases.ts and availability comes from
// src/orders/lifecycle.ts, so the portal behaves exactly as the API.

import type { Context } from "hono";
import type { Child } from "hono/jsx";
import { listOrderablePairs } from "../catalog/store.ts";
import { KYC_TYPE_WORDS } from "../compliance/types.ts";
import type { Database } from "../db/client.ts";
import { pageWindow } from "../db/paging.ts";
import { type CatalogRow, type KycType, ORDER_STATUSES, type OrderRow, type Requirements } from "../db/schema.ts";
import type { PortalEnv } from "../env.ts";
import { pageMeta } from "../http/pagination.ts";
import { workOf } from "../http/request-context.ts";
import { createRouter } from "../http/router.ts";
import { findProfileNames } from "../kyc/profiles-store.ts";
import { availableOn } from "../lib/action.ts";
import { withPrefix } from "../lib/ids.ts";
import { words } from "../lib/words.ts";
import { toNumber } from "../numbers/schemas.ts";
import { listNumbers } from "../numbers/store.ts";
import { mayChangeReservedFields } from "../orders/lifecycle.ts";
import { listOrders } from "../orders/list.ts";
import {
  createOrderBody,
  listOrdersQuery,
  MAX_QUANTITY,
  orderIdParam,
  toOrder,
  toOrderChanges,
  toOrderListQuery,
  toOrderRequest,
  updateOrderBody,
} from "../orders/schemas.ts";
import { findOrder } from "../orders/store.ts";
import { cancelOrderAction, changeOrderAction, placeOrder } from "../orders/use-cases.ts";
import { OrderFacts } from "../orders/views.tsx";
import { Badge, Confirmation, CsrfField, Notice, Pager, StatusTabs, Table } from "../ui/components.tsx";
import { notFoundPage } from "../ui/error-page.tsx";
import { date, dateTime, doneMessage, plural, withQuery } from "../ui/format.ts";
import {
  DayRangeFields,
  fieldMessages,
  formInteger,
  PerPageField,
  problemFieldLists,
  readForm,
  Select,
  SortFields,
  TextInput,
} from "../ui/forms.tsx";
import { FilterForm, listFilters, PairFilterFields, type PairFilterProps } from "../ui/list-filters.tsx";
import { renderPage } from "../ui/renderer.tsx";
import { type ProfileChoices, profileChoices } from "./kyc-parts.tsx";
import { NotesAndProfileFields } from "./order-choices.tsx";

/** A form's errors: one message a field, or several (each unmet requirement of a profile). */
type FieldErrors = Record<string, string | readonly string[]>;

/** The list's filters as a GET form: what the API's query takes, each problem beside its field. */
function OrderFilters({ values, errors, pairs }: PairFilterProps) {
  return (
    <FilterForm action="/portal/orders" values={values}>
      {values.status ? <input type="hidden" name="status" value={values.status} /> : null}
      <TextInput name="search" label="Search" value={values.search} error={errors.search} hint="Order number or notes" />
      <PairFilterFields values={values} errors={errors} pairs={pairs} />
      <TextInput
        name="quantity_min"
        label="Quantity from"
        type="number"
        value={values.quantity_min}
        error={errors.quantity_min}
      />
      <TextInput name="quantity_max" label="Quantity to" type="number" value={values.quantity_max} error={errors.quantity_max} />
      <DayRangeFields name="requested" label="Requested" values={values} errors={errors} />
      <DayRangeFields name="fulfilled" label="Fulfilled" values={values} errors={errors} />
      <SortFields query={listOrdersQuery} values={values} errors={errors} />
      <PerPageField values={values} errors={errors} />
    </FilterForm>
  );
}

/** The orderable (country, type) pairs, by country: the catalog is small (one row per pair). */
type Orderable = { country: string; types: string[] }[];

function orderableOf(rows: readonly CatalogRow[]): Orderable {
  const byCountry = new Map<string, string[]>();
  for (const row of rows) byCountry.set(row.countryCode, [...(byCountry.get(row.countryCode) ?? []), row.numberType]);
  return [...byCountry.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([country, types]) => ({ country, types: types.sort() }));
}

async function orderableCatalog(db: Database): Promise<Orderable> {
  return orderableOf(await listOrderablePairs(db));
}

/** A verification type inside a sentence: "a person", "a business". */
const typeWords = (type: KycType) => KYC_TYPE_WORDS[type].toLowerCase();

/** A pair's requirements as lines of text. */
function requirementLines(requirements: Requirements, countryCode: string): string[] {
  const lines = [`A verification of ${requirements.verification_types.map(typeWords).join(" or ")}`];
  if (requirements.address_in_country) lines.push(`An address in ${countryCode}`);
  for (const type of requirements.verification_types) {
    const fields = requirements.fields[type] ?? [];
    if (fields.length > 0) lines.push(`For ${typeWords(type)}: ${fields.map(words).join(", ")}`);
  }
  for (const document of requirements.documents) {
    const who =
      document.applies_to.length < requirements.verification_types.length
        ? ` (${document.applies_to.map(typeWords).join(", ")})`
        : "";
    lines.push(`${document.description}: ${document.document_types.map(words).join(" or ")}${who}`);
  }
  return lines;
}

/** Every orderable pair with what a verification for its numbers must hold; the chosen pair's row marked (script). */
function RequirementsTable({ rows }: { rows: readonly CatalogRow[] }) {
  return (
    <Table
      label="What each pair requires"
      rows={rows}
      columns={[
        { label: "Country", cell: (row) => <span data-pair={`${row.countryCode}/${row.numberType}`}>{row.countryCode}</span> },
        { label: "Type", cell: (row) => words(row.numberType) },
        {
          label: "Verification",
          cell: (row) =>
            row.requirements === null ? (
              <span class="muted">not needed</span>
            ) : (
              <ul class="reasons">
                {requirementLines(row.requirements, row.countryCode).map((line) => (
                  <li>{line}</li>
                ))}
              </ul>
            ),
        },
      ]}
    />
  );
}

/**
 * The number type follows the country: each country's types are a group of the type's select, and this script shows
 * only the chosen country's (without it, every group shows, and the API's not_orderable refusal is the guard).
 */
const TYPE_FOLLOWS_COUNTRY = `for (const form of document.querySelectorAll("form[data-orderable]")) {
  const country = form.querySelector("select[name=country_code]");
  const type = form.querySelector("select[name=number_type]");
  const follow = () => {
    for (const group of type.querySelectorAll("optgroup")) {
      const shown = group.dataset.group === country.value;
      group.hidden = !shown;
      group.disabled = !shown;
    }
    if (type.selectedOptions[0]?.parentElement?.disabled) type.value = "";
    for (const cell of document.querySelectorAll("[data-pair]")) {
      cell.closest("tr")?.classList.toggle("chosen", cell.dataset.pair === country.value + "/" + type.value);
    }
  };
  country.addEventListener("change", follow);
  type.addEventListener("change", follow);
  follow();
}`;

/** The order fields of a form (new or edit), from what was posted or the order as it is. */
function OrderFields({
  values,
  errors,
  catalog,
  profiles,
}: {
  values: Record<string, string>;
  errors: FieldErrors;
  catalog: Orderable;
  profiles: ProfileChoices;
}) {
  // The current pair stays selectable even if it has left the catalog, so an edit of another field still works.
  const current = values.country_code && values.number_type ? { country: values.country_code, type: values.number_type } : null;
  const groups = catalog.map(({ country, types }) => ({
    label: country,
    types: current?.country === country && !types.includes(current.type) ? [...types, current.type] : types,
  }));
  if (current && !groups.some((g) => g.label === current.country)) groups.push({ label: current.country, types: [current.type] });
  return (
    <>
      <Select
        name="country_code"
        label="Country"
        value={values.country_code}
        blank="Choose a country"
        options={groups.map((g) => [g.label, g.label] as const)}
        error={errors.country_code}
      />
      <Select
        name="number_type"
        label="Number type"
        value={values.number_type}
        group={values.country_code}
        blank="Choose a type"
        groups={groups.map((g) => ({ label: g.label, options: g.types.map((type) => [type, words(type)] as const) }))}
        error={errors.number_type}
        hint="The types orderable in the chosen country"
      />
      <TextInput
        name="quantity"
        label="Quantity"
        type="number"
        min="1"
        max={String(MAX_QUANTITY)}
        value={values.quantity}
        error={errors.quantity}
      />
      <NotesAndProfileFields values={values} errors={errors} profiles={profiles} />
    </>
  );
}

/** A form of order fields, with the script that makes the type follow the country. */
function OrderForm({ c, action, children }: { c: Context<PortalEnv>; action: string; children: Child }) {
  return (
    <form method="post" action={action} class="stack card" data-orderable novalidate>
      <CsrfField token={c.var.visitor.csrfToken} />
      {children}
      <script nonce={c.get("secureHeadersNonce")} dangerouslySetInnerHTML={{ __html: TYPE_FOLLOWS_COUNTRY }} />
    </form>
  );
}

/** The API's create body from the form: quantity as a number, empty notes absent. */
function createBodyFrom(form: Record<string, string>) {
  return createOrderBody.safeParse({
    number_type: form.number_type || undefined,
    country_code: form.country_code || undefined,
    quantity: formInteger(form.quantity),
    notes: form.notes?.trim() ? form.notes : undefined,
    kyc_profile_id: form.kyc_profile_id?.trim() ? form.kyc_profile_id.trim() : undefined,
  });
}

/** The API's update body from the edit form, which always sends every field: empty notes clear them (null). */
function updateBodyFrom(form: Record<string, string>) {
  return updateOrderBody.safeParse({
    number_type: form.number_type || undefined,
    country_code: form.country_code || undefined,
    quantity: formInteger(form.quantity),
    notes: form.notes?.trim() ? form.notes : null,
    kyc_profile_id: form.kyc_profile_id?.trim() ? form.kyc_profile_id.trim() : null,
  });
}

async function newOrderPage(
  c: Context<PortalEnv>,
  form: { values: Record<string, string>; errors: FieldErrors; refusal?: string | undefined },
  status: 200 | 400 = 200,
) {
  const [rows, profiles] = await Promise.all([listOrderablePairs(c.var.db), profileChoices(c.var.db, c.var.visitor.customer.id)]);
  const catalog = orderableOf(rows);
  return renderPage(
    c,
    { title: "New order", section: "orders" },
    <>
      <h1>New order</h1>
      {form.refusal ? <Notice kind="error">{form.refusal}</Notice> : null}
      {catalog.length === 0 ? (
        <div class="card empty">
          <p>Nothing can be ordered right now: no number type is open in any country. Ask your account manager.</p>
        </div>
      ) : (
        <>
          <OrderForm c={c} action="/portal/orders/new">
            <OrderFields values={form.values} errors={form.errors} catalog={catalog} profiles={profiles} />
            <div class="actions">
              <button type="submit">Place order</button>
              <a href="/portal/orders">Cancel</a>
            </div>
          </OrderForm>
          <h2>What each country and type requires</h2>
          <p class="muted">
            The verification each number of a country and type needs: its own, or a <a href="/portal/profiles">profile</a>'s.
          </p>
          <RequirementsTable rows={rows} />
        </>
      )}
    </>,
    status,
  );
}

/** The page a placed order's form leads to: it says whether the order waits, or was fulfilled at once (auto_fulfil). */
export function placedOrderHref(row: OrderRow): string {
  return `/portal/orders/${row.id}?done=${row.status === "fulfilled" ? "fulfilled" : "placed"}`;
}

function orderFormValues(row: OrderRow): Record<string, string> {
  return {
    number_type: row.numberType,
    country_code: row.countryCode,
    quantity: String(row.quantity),
    notes: row.notes ?? "",
    kyc_profile_id: row.kycProfileId === null ? "" : withPrefix("kyp", row.kycProfileId),
  };
}

const DONE: Record<string, string> = {
  placed: "The order is placed. It can be changed or cancelled here until it is processed.",
  fulfilled: "The order is placed and fulfilled at once from stock: its numbers are below.",
  saved: "The order is saved.",
  cancelled: "The order is cancelled.",
};

/** The numbers an order's page lists; the rest are a link away, in Numbers filtered by the order. */
const NUMBERS_SHOWN = 20;

/** The order's numbers, each linking to its page (and its verification), and all of them in Numbers. */
function OrderNumbers({ orderId, numbers, total }: { orderId: string; numbers: ReturnType<typeof toNumber>[]; total: number }) {
  if (total === 0) return <p class="muted">No numbers are allocated to this order yet.</p>;
  return (
    <>
      <Table
        label="Numbers of the order"
        rows={numbers}
        columns={[
          { label: "Number", cell: (n) => <a href={`/portal/numbers/${n.number_id}`}>{n.phone_number}</a> },
          { label: "Status", cell: (n) => <Badge status={n.status} /> },
          {
            label: "Verification",
            cell: (n) => (n.kyc_status ? <Badge status={n.kyc_status} /> : <span class="muted">not submitted</span>),
          },
          { label: "Since", cell: (n) => date(n.created_at) },
        ]}
      />
      <p>
        <a href={`/portal/numbers?order_id=${orderId}`}>
          {total > numbers.length ? `All ${plural(total, "number")} of the order in Numbers` : "These numbers in Numbers"}
        </a>
      </p>
    </>
  );
}

async function orderPage(
  c: Context<PortalEnv>,
  row: OrderRow,
  edit: { values?: Record<string, string>; errors?: FieldErrors; notice?: { kind: "error" | "success"; text: string } } = {},
  status = 200,
) {
  const { db, visitor } = c.var;
  const order = toOrder(row);
  const changeable = availableOn(changeOrderAction, row, c.var.now);
  const [catalog, profiles, numbers, profileNames] = await Promise.all([
    changeable ? orderableCatalog(db) : undefined,
    changeable ? profileChoices(db, visitor.customer.id) : undefined,
    listNumbers(
      db,
      visitor.customer.id,
      { orderId: row.id, sortBy: "phone_number", sortOrder: "asc" },
      pageWindow(1, NUMBERS_SHOWN),
    ),
    findProfileNames(db, visitor.customer.id, row.kycProfileId === null ? [] : [row.kycProfileId]),
  ]);
  const profileName = row.kycProfileId === null ? undefined : profileNames.get(row.kycProfileId);
  const done = doneMessage(DONE, c.req.query("done"));
  const href = `/portal/orders/${order.order_id}`;
  return renderPage(
    c,
    { title: `Order ${order.order_number}`, section: "orders" },
    <>
      <p>
        <a href="/portal/orders">← Orders</a>
      </p>
      <h1>
        Order {order.order_number} <Badge status={order.status} />
      </h1>
      {edit.notice ? (
        <Notice kind={edit.notice.kind}>{edit.notice.text}</Notice>
      ) : done && status === 200 ? (
        <Notice kind="success">{done}</Notice>
      ) : null}
      <OrderFacts
        order={order}
        reservation={
          order.reservation_id ? <a href={`/portal/reservations/${order.reservation_id}`}>Its reservation</a> : undefined
        }
        profile={
          order.kyc_profile_id && profileName !== undefined ? (
            <a href={`/portal/profiles/${order.kyc_profile_id}`}>{profileName}</a>
          ) : (
            "—"
          )
        }
      />
      {availableOn(cancelOrderAction, row, c.var.now) ? (
        <p class="actions">
          <a class="button secondary" href={`${href}/cancel`}>
            Cancel the order…
          </a>
        </p>
      ) : null}
      <h2>Numbers</h2>
      <OrderNumbers orderId={order.order_id} numbers={numbers.rows.map(toNumber)} total={numbers.total} />
      {catalog && profiles ? (
        <>
          <h2>Change the order</h2>
          <p class="muted">An order can be changed until it is processed.</p>
          <OrderForm c={c} action={`${href}/edit`}>
            {mayChangeReservedFields(row) ? (
              <OrderFields
                values={edit.values ?? orderFormValues(row)}
                errors={edit.errors ?? {}}
                catalog={catalog}
                profiles={profiles}
              />
            ) : (
              // Its reservation fixed the pair and quantity: the rest may change.
              <NotesAndProfileFields
                values={edit.values ?? orderFormValues(row)}
                errors={edit.errors ?? {}}
                profiles={profiles}
              />
            )}
            <div class="actions">
              <button type="submit">Save changes</button>
            </div>
          </OrderForm>
        </>
      ) : (
        <p class="muted">This order is {words(order.status)}; it can no longer be changed or cancelled.</p>
      )}
    </>,
    status,
  );
}

/** The confirmation of an order's cancel (a pending order's; any other goes back to its page, which says why not). */
function cancelPage(c: Context<PortalEnv>, row: OrderRow) {
  const order = toOrder(row);
  const href = `/portal/orders/${order.order_id}`;
  if (!availableOn(cancelOrderAction, row, c.var.now)) return c.redirect(href, 303);
  return renderPage(
    c,
    { title: `Cancel order ${order.order_number}`, section: "orders" },
    <Confirmation
      token={c.var.visitor.csrfToken}
      title={`Cancel order ${order.order_number}?`}
      action={`${href}/cancel`}
      button="Cancel the order"
      cancel={href}
      back="Keep the order"
    >
      <p>
        The order for {plural(order.quantity, `${words(order.number_type)} number`)} in {order.country_code} stops for good: it
        cannot be reopened, and your webhooks are sent order.cancelled. Place a new order if you need numbers after all.
      </p>
    </Confirmation>,
  );
}

function orderNotFound(c: Context<PortalEnv>) {
  return notFoundPage(c, { what: "Order", section: "orders", back: { href: "/portal/orders", label: "Back to the orders" } });
}

/** The visitor's order by the path's id; another account's order, or a malformed id, is not found. */
async function visitorsOrder(c: Context<PortalEnv>): Promise<OrderRow | undefined> {
  const id = orderIdParam.safeParse(c.req.param("order_id"));
  return id.success ? findOrder(c.var.db, c.var.visitor.customer.id, id.data) : undefined;
}

export const orderPages = createRouter<PortalEnv>()
  .get("/orders", async (c) => {
    const visitor = c.var.visitor;
    const pairs = await listOrderablePairs(c.var.db);
    const filters = listFilters(c, listOrdersQuery, { title: "Orders", section: "orders" }, (props) => (
      <OrderFilters {...props} pairs={pairs} />
    ));
    if ("answer" in filters) return filters.answer;
    const { raw, query } = filters;
    const window = pageWindow(query.page, query.limit);
    const list = await listOrders(c.var.db, visitor.customer.id, toOrderListQuery(query), window);
    const meta = pageMeta(window, list.total);
    return renderPage(
      c,
      { title: "Orders", section: "orders" },
      <>
        <div class="page-head">
          <h1>Orders</h1>
          <a class="button" href="/portal/orders/new">
            New order
          </a>
        </div>
        <StatusTabs
          path="/portal/orders"
          query={raw}
          statuses={ORDER_STATUSES}
          counts={list.statusCounts}
          filtered={query.status}
        />
        <OrderFilters values={raw} errors={{}} pairs={pairs} />
        {list.rows.length === 0 ? (
          <div class="card empty">
            <p>
              No orders match. Change the filters, or <a href="/portal/orders/new">place an order</a>.
            </p>
          </div>
        ) : (
          <Table
            label="Orders"
            rows={list.rows.map(toOrder)}
            columns={[
              { label: "Order", cell: (order) => <a href={`/portal/orders/${order.order_id}`}>{order.order_number}</a> },
              { label: "Type", cell: (order) => words(order.number_type) },
              { label: "Country", cell: (order) => order.country_code },
              { label: "Quantity", cell: (order) => order.quantity },
              { label: "Fulfilled", cell: (order) => order.fulfilled_quantity },
              { label: "Status", cell: (order) => <Badge status={order.status} /> },
              { label: "Requested", cell: (order) => dateTime(order.requested_at) },
            ]}
          />
        )}
        <Pager meta={meta} noun="order" hrefOf={(page) => `/portal/orders${withQuery(raw, { page: String(page) })}`} />
      </>,
    );
  })
  .get("/orders/new", (c) => newOrderPage(c, { values: {}, errors: {} }))
  .post("/orders/new", async (c) => {
    const visitor = c.var.visitor;
    const form = (await readForm(c)).fields;
    const parsed = createBodyFrom(form);
    if (!parsed.success) return newOrderPage(c, { values: form, errors: fieldMessages(parsed.error.issues) }, 400);
    const created = await placeOrder(workOf(c), visitor.customer.id, toOrderRequest(parsed.data));
    if (!created.ok) {
      const { problem } = created;
      return newOrderPage(c, { values: form, errors: problemFieldLists(problem), refusal: problem.message }, 400);
    }
    return c.redirect(placedOrderHref(created.value), 303);
  })
  .get("/orders/:order_id", async (c) => {
    const row = await visitorsOrder(c);
    return row ? orderPage(c, row) : orderNotFound(c);
  })
  .get("/orders/:order_id/cancel", async (c) => {
    const row = await visitorsOrder(c);
    return row ? cancelPage(c, row) : orderNotFound(c);
  })
  .post("/orders/:order_id/cancel", async (c) => {
    const row = await visitorsOrder(c);
    if (!row) return orderNotFound(c);
    const cancelled = await cancelOrderAction.run(workOf(c), c.var.visitor.customer.id, row.id);
    if (cancelled.ok) return c.redirect(`/portal/orders/${row.id}?done=cancelled`, 303);
    const { problem } = cancelled;
    if (problem.code === "not_found") return orderNotFound(c);
    // It left pending since the page was shown: show it as it is now, with why.
    const now = (await findOrder(c.var.db, c.var.visitor.customer.id, row.id)) ?? row;
    return orderPage(c, now, { notice: { kind: "error", text: problem.message } }, problem.status);
  })
  .post("/orders/:order_id/edit", async (c) => {
    const row = await visitorsOrder(c);
    if (!row) return orderNotFound(c);
    const form = (await readForm(c)).fields;
    const parsed = updateBodyFrom(form);
    if (!parsed.success) return orderPage(c, row, { values: form, errors: fieldMessages(parsed.error.issues) }, 400);
    const updated = await changeOrderAction.run(workOf(c), c.var.visitor.customer.id, row.id, toOrderChanges(parsed.data));
    if (updated.ok) return c.redirect(`/portal/orders/${row.id}?done=saved`, 303);
    const { problem } = updated;
    if (problem.code === "not_found") return orderNotFound(c);
    // It may have left pending since the page was shown: show it as it is now.
    const now = (await findOrder(c.var.db, c.var.visitor.customer.id, row.id)) ?? row;
    const edit = problem.code === "order_not_pending" ? {} : { values: form, errors: problemFieldLists(problem) };
    return orderPage(c, now, { ...edit, notice: { kind: "error", text: problem.message } }, problem.status);
  });
