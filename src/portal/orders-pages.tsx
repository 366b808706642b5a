// The portal's Orders: the list with every filter of the API (parsed by the API's own query schema), status tabs with
// the counts, sorting and paging; a new order from the orderable catalog; an order's page, editable while pending. Every
// change goes through the API's store with the request's outbox, so the portal emits the same events.

import type { Context } from "hono";
import { listCatalog } from "../catalog/store.ts";
import type { Database } from "../db/client.ts";
import { pageWindow } from "../db/paging.ts";
import { ORDER_STATUSES, type OrderRow } from "../db/schema.ts";
import type { PortalEnv } from "../env.ts";
import { pageMeta } from "../http/pagination.ts";
import { createRouter } from "../http/router.ts";
import { listOrders, ORDER_SORT_KEYS } from "../orders/list.ts";
import {
  createOrderBody,
  listOrdersQuery,
  orderIdParam,
  toNewOrder,
  toOrder,
  toOrderChanges,
  toOrderListQuery,
  updateOrderBody,
} from "../orders/schemas.ts";
import { createOrder, findOrder, updatePendingOrder } from "../orders/store.ts";
import { fieldMessages, formInteger, listFilters, optionsOf, postedFields, Select, TextArea, TextInput } from "./forms.tsx";
import { Badge, CsrfField, Notice, Pager, renderPage, StatusTabs, withQuery } from "./layout.tsx";

const SORT_ORDERS = [
  ["desc", "Descending"],
  ["asc", "Ascending"],
] as const;

type Messages = Record<string, string>;

/** The list's filters as a GET form: what the API's query takes, each problem beside its field. */
function OrderFilters({ values, errors }: { values: Record<string, string>; errors: Messages }) {
  return (
    <form method="get" action="/portal/orders" class="filters card" aria-label="Filters">
      {values.status ? <input type="hidden" name="status" value={values.status} /> : null}
      <TextInput name="search" label="Search" value={values.search} error={errors.search} hint="Order number or notes" />
      <TextInput
        name="number_type"
        label="Number types"
        value={values.number_type}
        error={errors.number_type}
        hint="Comma list"
      />
      <TextInput
        name="country_code"
        label="Countries"
        value={values.country_code}
        error={errors.country_code}
        hint="e.g. US,GB"
      />
      <TextInput
        name="quantity_min"
        label="Quantity from"
        type="number"
        value={values.quantity_min}
        error={errors.quantity_min}
      />
      <TextInput name="quantity_max" label="Quantity to" type="number" value={values.quantity_max} error={errors.quantity_max} />
      <TextInput
        name="requested_from"
        label="Requested from"
        type="date"
        value={values.requested_from}
        error={errors.requested_from}
      />
      <TextInput name="requested_to" label="Requested to" type="date" value={values.requested_to} error={errors.requested_to} />
      <TextInput
        name="fulfilled_from"
        label="Fulfilled from"
        type="date"
        value={values.fulfilled_from}
        error={errors.fulfilled_from}
      />
      <TextInput name="fulfilled_to" label="Fulfilled to" type="date" value={values.fulfilled_to} error={errors.fulfilled_to} />
      <Select
        name="sort_by"
        label="Sort by"
        value={values.sort_by ?? "created_at"}
        options={optionsOf(ORDER_SORT_KEYS)}
        error={errors.sort_by}
      />
      <Select
        name="sort_order"
        label="Order"
        value={values.sort_order ?? "desc"}
        options={SORT_ORDERS}
        error={errors.sort_order}
      />
      <TextInput name="limit" label="Per page" type="number" value={values.limit} error={errors.limit} />
      <div class="actions">
        <button type="submit">Apply</button>
        <a href="/portal/orders">Clear</a>
      </div>
    </form>
  );
}

/** The orderable pairs, for the order forms: the catalog is small (one row per country and type). */
async function orderableCatalog(db: Database): Promise<{ types: string[]; countries: string[] }> {
  const { rows } = await listCatalog(db, pageWindow(1, 1000));
  const distinct = (values: string[]) => [...new Set(values)].sort();
  return { types: distinct(rows.map((r) => r.numberType)), countries: distinct(rows.map((r) => r.countryCode)) };
}

/** The order fields of a form (new or edit), from what was posted or the order as it is. */
function OrderFields({
  values,
  errors,
  catalog,
}: {
  values: Record<string, string>;
  errors: Messages;
  catalog: { types: string[]; countries: string[] };
}) {
  // The current value stays selectable even if it has left the catalog, so an edit of another field still works.
  const withCurrent = (list: string[], current: string | undefined) =>
    current && !list.includes(current) ? [...list, current] : list;
  return (
    <>
      <Select
        name="number_type"
        label="Number type"
        value={values.number_type}
        blank="Choose a type"
        options={optionsOf(withCurrent(catalog.types, values.number_type))}
        error={errors.number_type}
      />
      <Select
        name="country_code"
        label="Country"
        value={values.country_code}
        blank="Choose a country"
        options={optionsOf(withCurrent(catalog.countries, values.country_code))}
        error={errors.country_code}
      />
      <TextInput
        name="quantity"
        label="Quantity"
        type="number"
        min="1"
        max="10000"
        value={values.quantity}
        error={errors.quantity}
      />
      <TextArea name="notes" label="Notes" value={values.notes} error={errors.notes} hint="Optional, up to 1000 characters" />
    </>
  );
}

/** The API's create body from the form: quantity as a number, empty notes absent. */
function createBodyFrom(form: Record<string, string>) {
  return createOrderBody.safeParse({
    number_type: form.number_type || undefined,
    country_code: form.country_code || undefined,
    quantity: formInteger(form.quantity),
    notes: form.notes?.trim() ? form.notes : undefined,
  });
}

/** The API's update body from the edit form, which always sends every field: empty notes clear them (null). */
function updateBodyFrom(form: Record<string, string>) {
  return updateOrderBody.safeParse({
    number_type: form.number_type || undefined,
    country_code: form.country_code || undefined,
    quantity: formInteger(form.quantity),
    notes: form.notes?.trim() ? form.notes : null,
  });
}

function NewOrderPage({
  token,
  values,
  errors,
  catalog,
  refusal,
}: {
  token: string;
  values: Record<string, string>;
  errors: Messages;
  catalog: { types: string[]; countries: string[] };
  refusal?: string;
}) {
  return (
    <>
      <h1>New order</h1>
      {refusal ? <Notice kind="error">{refusal}</Notice> : null}
      {catalog.types.length === 0 ? (
        <div class="card empty">
          <p>Nothing can be ordered right now: no number type is open in any country. Ask your account manager.</p>
        </div>
      ) : (
        <form method="post" action="/portal/orders/new" class="stack card" novalidate>
          <CsrfField token={token} />
          <OrderFields values={values} errors={errors} catalog={catalog} />
          <div class="actions">
            <button type="submit">Place order</button>
            <a href="/portal/orders">Cancel</a>
          </div>
        </form>
      )}
    </>
  );
}

function orderFormValues(row: OrderRow): Record<string, string> {
  return { number_type: row.numberType, country_code: row.countryCode, quantity: String(row.quantity), notes: row.notes ?? "" };
}

function notOrderableMessage(numberType: string, countryCode: string): string {
  return `${numberType} numbers cannot be ordered in ${countryCode} right now; choose another type or country.`;
}

const formatTime = (iso: string | null) => (iso === null ? "—" : `${iso.slice(0, 16).replace("T", " ")} UTC`);

async function orderPage(
  c: Context<PortalEnv>,
  row: OrderRow,
  edit: { values?: Record<string, string>; errors?: Messages; notice?: { kind: "error" | "success"; text: string } } = {},
  status: 200 | 400 | 409 = 200,
) {
  const visitor = c.var.visitor;
  const order = toOrder(row);
  const catalog = order.status === "pending" ? await orderableCatalog(c.var.db) : undefined;
  return renderPage(
    c,
    visitor,
    { title: `Order ${order.order_number}`, section: "orders" },
    <>
      <p>
        <a href="/portal/orders">← Orders</a>
      </p>
      <h1>
        Order {order.order_number} <Badge status={order.status} />
      </h1>
      {edit.notice ? <Notice kind={edit.notice.kind}>{edit.notice.text}</Notice> : null}
      <div class="card">
        <dl class="facts">
          <dt>Number type</dt>
          <dd>{order.number_type}</dd>
          <dt>Country</dt>
          <dd>{order.country_code}</dd>
          <dt>Quantity</dt>
          <dd>{order.quantity}</dd>
          <dt>Fulfilled</dt>
          <dd>{order.fulfilled_quantity}</dd>
          <dt>Notes</dt>
          <dd>{order.notes ?? "—"}</dd>
          <dt>Requested</dt>
          <dd>{formatTime(order.requested_at)}</dd>
          <dt>Fulfilled at</dt>
          <dd>{formatTime(order.fulfilled_at)}</dd>
          <dt>Last change</dt>
          <dd>{formatTime(order.updated_at)}</dd>
        </dl>
      </div>
      {catalog ? (
        <>
          <h2>Change the order</h2>
          <p class="muted">An order can be changed until it is processed.</p>
          <form method="post" action={`/portal/orders/${order.order_id}/edit`} class="stack card" novalidate>
            <CsrfField token={visitor.csrfToken} />
            <OrderFields values={edit.values ?? orderFormValues(row)} errors={edit.errors ?? {}} catalog={catalog} />
            <div class="actions">
              <button type="submit">Save changes</button>
            </div>
          </form>
        </>
      ) : (
        <p class="muted">This order is {order.status}; it can no longer be changed.</p>
      )}
    </>,
    status,
  );
}

function orderNotFound(c: Context<PortalEnv>) {
  return renderPage(
    c,
    c.var.visitor,
    { title: "Order not found", section: "orders" },
    <>
      <h1>Order not found</h1>
      <p>
        This account has no such order. <a href="/portal/orders">Back to the orders</a>.
      </p>
    </>,
    404,
  );
}

/** The visitor's order by the path's id; another account's order, or a malformed id, is not found. */
async function visitorsOrder(c: Context<PortalEnv>): Promise<OrderRow | undefined> {
  const id = orderIdParam.safeParse(c.req.param("order_id"));
  return id.success ? findOrder(c.var.db, c.var.visitor.customer.id, id.data) : undefined;
}

export const orderPages = createRouter<PortalEnv>()
  .get("/orders", async (c) => {
    const visitor = c.var.visitor;
    const filters = listFilters(c, listOrdersQuery, { title: "Orders", section: "orders" }, OrderFilters);
    if ("refused" in filters) return filters.refused;
    const { raw, query } = filters;
    const window = pageWindow(query.page, query.limit);
    const list = await listOrders(c.var.db, visitor.customer.id, toOrderListQuery(query), window);
    const meta = pageMeta(window, list.total);
    return renderPage(
      c,
      visitor,
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
        <OrderFilters values={raw} errors={{}} />
        {list.rows.length === 0 ? (
          <div class="card empty">
            <p>
              No orders match. Change the filters, or <a href="/portal/orders/new">place an order</a>.
            </p>
          </div>
        ) : (
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Order</th>
                  <th scope="col">Type</th>
                  <th scope="col">Country</th>
                  <th scope="col">Quantity</th>
                  <th scope="col">Fulfilled</th>
                  <th scope="col">Status</th>
                  <th scope="col">Requested</th>
                </tr>
              </thead>
              <tbody>
                {list.rows.map(toOrder).map((order) => (
                  <tr>
                    <td>
                      <a href={`/portal/orders/${order.order_id}`}>{order.order_number}</a>
                    </td>
                    <td>{order.number_type}</td>
                    <td>{order.country_code}</td>
                    <td>{order.quantity}</td>
                    <td>{order.fulfilled_quantity}</td>
                    <td>
                      <Badge status={order.status} />
                    </td>
                    <td>{order.requested_at.slice(0, 16).replace("T", " ")}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        <Pager meta={meta} noun="orders" hrefOf={(page) => `/portal/orders${withQuery(raw, { page: String(page) })}`} />
      </>,
    );
  })
  .get("/orders/new", async (c) =>
    renderPage(
      c,
      c.var.visitor,
      { title: "New order", section: "orders" },
      <NewOrderPage token={c.var.visitor.csrfToken} values={{}} errors={{}} catalog={await orderableCatalog(c.var.db)} />,
    ),
  )
  .post("/orders/new", async (c) => {
    const visitor = c.var.visitor;
    const form = await postedFields(c);
    const parsed = createBodyFrom(form);
    const again = async (errors: Messages, refusal?: string) =>
      renderPage(
        c,
        visitor,
        { title: "New order", section: "orders" },
        <NewOrderPage
          token={visitor.csrfToken}
          values={form}
          errors={errors}
          catalog={await orderableCatalog(c.var.db)}
          refusal={refusal}
        />,
        400,
      );
    if (!parsed.success) return again(fieldMessages(parsed.error.issues));
    const created = await createOrder(c.var.db, c.var.outbox, visitor.customer.id, toNewOrder(parsed.data), Date.now());
    if (!created.ok) return again({}, notOrderableMessage(created.numberType, created.countryCode));
    return c.redirect(`/portal/orders/${created.value.id}`, 303);
  })
  .get("/orders/:order_id", async (c) => {
    const row = await visitorsOrder(c);
    return row ? orderPage(c, row) : orderNotFound(c);
  })
  .post("/orders/:order_id/edit", async (c) => {
    const row = await visitorsOrder(c);
    if (!row) return orderNotFound(c);
    const form = await postedFields(c);
    const parsed = updateBodyFrom(form);
    if (!parsed.success) return orderPage(c, row, { values: form, errors: fieldMessages(parsed.error.issues) }, 400);
    const updated = await updatePendingOrder(
      c.var.db,
      c.var.outbox,
      c.var.visitor.customer.id,
      row.id,
      toOrderChanges(parsed.data),
      Date.now(),
    );
    if (updated.ok) return c.redirect(`/portal/orders/${row.id}`, 303);
    switch (updated.reason) {
      case "not_found":
        return orderNotFound(c);
      case "wrong_state": {
        // It left pending since the page was shown: show it as it is now.
        const now = (await findOrder(c.var.db, c.var.visitor.customer.id, row.id)) ?? row;
        const text = `This order is ${updated.state} now; it can no longer be changed.`;
        return orderPage(c, now, { notice: { kind: "error", text } }, 409);
      }
      case "not_orderable":
        return orderPage(
          c,
          row,
          {
            values: form,
            errors: {},
            notice: { kind: "error", text: notOrderableMessage(updated.numberType, updated.countryCode) },
          },
          409,
        );
    }
  });
