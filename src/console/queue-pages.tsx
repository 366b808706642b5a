// The console's order queue and order page. Changes go through the API's use cases (allocateToOrder, moveOrder), so the
// console writes the same events and audit as the API.

import type { Context } from "hono";
import { listOrderablePairs } from "../catalog/store.ts";
import { pageWindow } from "../db/paging.ts";
import { OPEN_ORDER_STATUSES, ORDER_STATUSES, type OrderRow, type OrderStatus } from "../db/schema.ts";
import type { ConsoleEnv } from "../env.ts";
import { pageMeta } from "../http/pagination.ts";
import { workOf } from "../http/request-context.ts";
import { createRouter } from "../http/router.ts";
import type { Problem } from "../lib/problem.ts";
import { capitalised, words } from "../lib/words.ts";
import { allocationBody, toAllocation } from "../numbers/schemas.ts";
import { findOrderDetails } from "../numbers/store.ts";
import { allocateAction } from "../numbers/use-cases.ts";
import { mayMove, movesFrom } from "../orders/lifecycle.ts";
import { listOrderQueue } from "../orders/queue.ts";
import { orderIdParam, orderQueueQuery, toOrder, toOrderQueueQuery, toQueuedOrder } from "../orders/schemas.ts";
import { findOrderById } from "../orders/store.ts";
import { moveOrderAction } from "../orders/use-cases.ts";
import { OrderFacts } from "../orders/views.tsx";
import { changeGuard, mayRaise, offered } from "../staff/roles.ts";
import { numbersHeldFor } from "../stock/holders.ts";
import { Badge, Confirmation, CsrfField, Notice, Pager, pageNotice, Table } from "../ui/components.tsx";
import { notFoundPage } from "../ui/error-page.tsx";
import { dateTime, plural, withQuery } from "../ui/format.ts";
import {
  DayRangeFields,
  fieldMessages,
  PerPageField,
  problemFields,
  readForm,
  SortFields,
  TextArea,
  TextInput,
} from "../ui/forms.tsx";
import { FilterForm, listFilters, PairFilterFields, type PairFilterProps } from "../ui/list-filters.tsx";
import { renderPage } from "../ui/renderer.tsx";
import { numberHref } from "./number-moves.tsx";
import { STOCK } from "./stock-pages.tsx";

const SECTION = "queue";
/** How many of an order's numbers its page lists at a time. */
const NUMBERS_PER_PAGE = 50;

/** What the order's page says after its redirects. */
const DONE: Record<string, string> = {
  allocated: "The numbers are allocated to the order.",
  moved: "The order is processing.",
  cancelled: "The order is cancelled.",
};

type Messages = Record<string, string>;

/** An age for display: "under an hour", "5 h", "3 d 4 h". */
export function age(hours: number): string {
  if (hours < 1) return "under an hour";
  if (hours < 48) return `${hours} h`;
  const rest = hours % 24;
  return rest === 0 ? `${Math.floor(hours / 24)} d` : `${Math.floor(hours / 24)} d ${rest} h`;
}

function QueueFilters({ values, errors, pairs }: PairFilterProps) {
  return (
    <FilterForm action="/ops/queue" values={values}>
      {values.status ? <input type="hidden" name="status" value={values.status} /> : null}
      <TextInput name="customer_slug" label="Account" value={values.customer_slug} error={errors.customer_slug} hint="Its slug" />
      <PairFilterFields values={values} errors={errors} pairs={pairs} />
      <DayRangeFields name="requested" label="Requested" values={values} errors={errors} />
      <SortFields query={orderQueueQuery} values={values} errors={errors} />
      <PerPageField values={values} errors={errors} />
    </FilterForm>
  );
}

/**
 * The queue's tabs: the open orders (the default), each status, and every status, with their counts; each keeps the
 * other filters.
 */
function QueueTabs({
  query,
  counts,
  filtered,
}: {
  query: Record<string, string>;
  counts: Record<OrderStatus, number>;
  filtered: readonly OrderStatus[] | undefined;
}) {
  const sum = (statuses: readonly OrderStatus[]) => statuses.reduce((total, status) => total + counts[status], 0);
  const chosen = (filtered ?? OPEN_ORDER_STATUSES).join(",");
  const tabs: { label: string; status: string | undefined; statuses: readonly OrderStatus[] }[] = [
    { label: "Open", status: undefined, statuses: OPEN_ORDER_STATUSES },
    ...ORDER_STATUSES.map((status) => ({ label: capitalised(status), status, statuses: [status] })),
    { label: "All", status: ORDER_STATUSES.join(","), statuses: ORDER_STATUSES },
  ];
  return (
    <ul class="tabs" aria-label="Status">
      {tabs.map((tab) => (
        <li>
          <a
            href={`/ops/queue${withQuery(query, { status: tab.status })}`}
            aria-current={tab.statuses.join(",") === chosen ? "page" : undefined}
          >
            {tab.label} ({sum(tab.statuses)})
          </a>
        </li>
      ))}
    </ul>
  );
}

/** What the order's page shows beside its forms after a refusal: the Problem's words, and each field's error. */
interface Refusal {
  text: string;
  values?: Record<string, string>;
  errors?: Messages;
}

/** The numbers an order still needs. */
function remainingOf(row: OrderRow): number {
  return row.quantity - row.fulfilledQuantity;
}

async function orderPage(c: Context<ConsoleEnv>, row: OrderRow, refusal?: Refusal, status = 200) {
  const order = toOrder(row);
  const page = Math.max(1, Number.parseInt(c.req.query("page") ?? "1", 10) || 1);
  const window = pageWindow(page, NUMBERS_PER_PAGE);
  const [details, held] = await Promise.all([
    findOrderDetails(c.var.db, row, window),
    row.reservationId ? numbersHeldFor(c.var.db, row.reservationId, NUMBERS_PER_PAGE, c.var.now) : undefined,
  ]);
  // An order's numbers are never taken back or deleted: it has as many as it was given (fulfilled_quantity).
  const meta = pageMeta(window, row.fulfilledQuantity);
  const mayAllocate = offered(c.var.operator, allocateAction, row, c.var.now);
  const mayMoveOrders = offered(c.var.operator, moveOrderAction, row, c.var.now);
  const remaining = remainingOf(row);
  // The moves the order's life cycle allows the operator from its status now.
  const moves = movesFrom(row.status, "operator");
  const notice = pageNotice(c, DONE, refusal && { kind: "error", text: refusal.text }, status);
  const href = `/ops/orders/${order.order_id}`;
  const token = c.var.csrfToken;
  return renderPage(
    c,
    { title: `Order ${order.order_number} of ${details.slug}`, section: SECTION },
    <>
      <p>
        <a href="/ops/queue">← Queue</a>
      </p>
      <h1>
        Order {order.order_number} <Badge status={order.status} />
      </h1>
      {notice ? <Notice kind={notice.kind}>{notice.text}</Notice> : null}
      <OrderFacts
        order={order}
        account={<a href={`/ops/queue?customer_slug=${encodeURIComponent(details.slug)}`}>{details.slug}</a>}
        inStock={`${plural(details.stockAvailable, "number")} of this country and type`}
        profile={
          order.kyc_profile_id && details.profileName !== undefined ? (
            <a href={`/ops/reviews/profiles/${order.kyc_profile_id}`}>{details.profileName}</a>
          ) : (
            "—"
          )
        }
      />
      {mayAllocate || mayMoveOrders ? (
        <>
          <h2>Fulfil</h2>
          {mayAllocate && remaining > 0 ? (
            <>
              <form method="post" action={`${href}/numbers`} class="actions">
                <CsrfField token={token} />
                <input type="hidden" name="from_stock" value={String(remaining)} />
                <button type="submit">Allocate the remaining {remaining} from stock</button>
              </form>
              <form method="post" action={`${href}/numbers`} class="stack card" novalidate>
                <CsrfField token={token} />
                <TextArea
                  name="phone_numbers"
                  label="Phone numbers"
                  value={refusal?.values?.phone_numbers}
                  error={refusal?.errors?.phone_numbers}
                  hint={`One per line, in E.164 (+14155550123); at most ${remaining}`}
                  rows={4}
                />
                {mayRaise(c.var.operator, allocateAction) ? (
                  <label class="check">
                    <input
                      type="checkbox"
                      name="ignore_quarantine"
                      value="true"
                      checked={refusal?.values?.ignore_quarantine === "true"}
                    />
                    Allocate quarantined numbers too (ignore quarantine)
                  </label>
                ) : null}
                <div class="actions">
                  <button type="submit">Allocate these numbers</button>
                </div>
              </form>
            </>
          ) : null}
          {mayMoveOrders ? (
            <div class="actions">
              {moves.includes("processing") ? (
                <form method="post" action={`${href}/status`} class="inline">
                  <CsrfField token={token} />
                  <input type="hidden" name="status" value="processing" />
                  <button type="submit">Move to processing</button>
                </form>
              ) : null}
              {moves.includes("cancelled") ? <a href={`${href}/cancel`}>Cancel the order…</a> : null}
            </div>
          ) : null}
        </>
      ) : null}
      {order.reservation_id && held ? <HeldForOrder reservationId={order.reservation_id} held={held} /> : null}
      <h2>Numbers</h2>
      {details.numbers.length === 0 ? (
        <p class="muted">No numbers are allocated to this order yet.</p>
      ) : (
        <Table
          label="Numbers"
          rows={details.numbers}
          columns={[
            { label: "Phone number", cell: (number) => <a href={numberHref(number.id)}>{number.phoneNumber}</a> },
            { label: "Status", cell: (number) => <Badge status={number.status} /> },
            { label: "Allocated", cell: (number) => dateTime(number.createdAt) },
          ]}
        />
      )}
      <Pager meta={meta} noun="number" hrefOf={(n) => `${href}?page=${n}`} />
    </>,
    status,
  );
}

/** The reservation an order was placed from, and its numbers still held for the order (allocated from stock first). */
function HeldForOrder({ reservationId, held }: { reservationId: string; held: Awaited<ReturnType<typeof numbersHeldFor>> }) {
  return (
    <>
      <h2>Reserved for this order</h2>
      <p>
        Placed from reservation {reservationId}.{" "}
        {held.total === 0
          ? "None of its numbers is held any more."
          : `${plural(held.total, "number")} of it ${held.total === 1 ? "is" : "are"} held for the order; an allocation from stock takes them first.`}
      </p>
      {held.rows.length > 0 ? (
        <Table
          label="Numbers held for the order"
          rows={held.rows}
          columns={[
            {
              label: "Phone number",
              cell: (n) => <a href={`${STOCK}?search=${encodeURIComponent(n.phoneNumber.slice(1))}`}>{n.phoneNumber}</a>,
            },
            { label: "Status", cell: () => <Badge status="reserved" /> },
          ]}
        />
      ) : null}
    </>
  );
}

function orderNotFound(c: Context<ConsoleEnv>) {
  return notFoundPage(c, { what: "Order", section: SECTION, back: { href: "/ops/queue", label: "Back to the queue" } });
}

/** Any account's order by the path's id (as GET /admin/orders/{id} reads it); a malformed id is not found. */
async function pathOrder(c: Context<ConsoleEnv>): Promise<OrderRow | undefined> {
  const id = orderIdParam.safeParse(c.req.param("order_id"));
  return id.success ? findOrderById(c.var.db, id.data) : undefined;
}

/** The order's page again with a use case's refusal: its words, its fields' errors, its status; the order as it is now. */
async function refusedPage(c: Context<ConsoleEnv>, row: OrderRow, problem: Problem, values: Record<string, string> = {}) {
  if (problem.code === "not_found") return orderNotFound(c);
  const now = (await findOrderById(c.var.db, row.id)) ?? row;
  return orderPage(c, now, { text: problem.message, values, errors: problemFields(problem) }, problem.status);
}

/** The allocation's body from a form: the hidden from_stock count, or the pasted numbers, one a line. */
function allocationFrom(form: Record<string, string>) {
  if (form.phone_numbers !== undefined) {
    const listed = form.phone_numbers
      .split(/\r?\n/)
      .map((line) => line.trim())
      .filter((line) => line !== "");
    // An unticked box sends nothing; a ticked one only the roles that may set it get past the guard with.
    const ignoreQuarantine = form.ignore_quarantine === "true" ? true : undefined;
    return listed.length === 0
      ? undefined
      : allocationBody.safeParse({ phone_numbers: listed, ignore_quarantine: ignoreQuarantine });
  }
  return allocationBody.safeParse({ from_stock: Number(form.from_stock) });
}

export const queuePages = createRouter<ConsoleEnv>()
  .get("/queue", async (c) => {
    const pairs = await listOrderablePairs(c.var.db);
    const filters = listFilters(c, orderQueueQuery, { title: "Queue", section: SECTION }, (props) => (
      <QueueFilters {...props} pairs={pairs} />
    ));
    if ("answer" in filters) return filters.answer;
    const { raw, query } = filters;
    const window = pageWindow(query.page, query.limit);
    const { rows, total, statusCounts } = await listOrderQueue(c.var.db, toOrderQueueQuery(query), window);
    const now = workOf(c).now;
    const meta = pageMeta(window, total);
    return renderPage(
      c,
      { title: "Queue", section: SECTION },
      <>
        <h1>Queue</h1>
        <QueueTabs query={raw} counts={statusCounts} filtered={query.status} />
        <QueueFilters values={raw} errors={{}} pairs={pairs} />
        {rows.length === 0 ? (
          <div class="card empty">
            <p>No orders match. Change the filters or the status.</p>
          </div>
        ) : (
          <Table
            label="Orders"
            rows={rows.map((row) => toQueuedOrder(row, now))}
            columns={[
              { label: "Order", cell: (order) => <a href={`/ops/orders/${order.order_id}`}>{order.order_number}</a> },
              { label: "Age", cell: (order) => age(order.age_hours) },
              {
                label: "Account",
                cell: (order) => (
                  <a href={`/ops/queue${withQuery(raw, { customer_slug: order.customer_slug })}`}>{order.customer_slug}</a>
                ),
              },
              { label: "Pair", cell: (order) => `${order.country_code} ${words(order.number_type)}` },
              { label: "Quantity", cell: (order) => order.quantity },
              { label: "Fulfilled", cell: (order) => order.fulfilled_quantity },
              { label: "In stock", cell: (order) => order.stock_available },
              { label: "Status", cell: (order) => <Badge status={order.status} /> },
            ]}
          />
        )}
        <Pager meta={meta} noun="order" hrefOf={(page) => `/ops/queue${withQuery(raw, { page: String(page) })}`} />
      </>,
    );
  })
  .get("/orders/:order_id", async (c) => {
    const row = await pathOrder(c);
    return row ? orderPage(c, row) : orderNotFound(c);
  })
  .post("/orders/:order_id/numbers", changeGuard(allocateAction), async (c) => {
    const row = await pathOrder(c);
    if (!row) return orderNotFound(c);
    const form = (await readForm(c)).fields;
    const parsed = allocationFrom(form);
    if (!parsed?.success) {
      const errors = parsed ? fieldMessages(parsed.error.issues) : { phone_numbers: "is required" };
      const text = "The numbers cannot be allocated; the problem is shown beside the field.";
      return orderPage(c, row, { text: errors.from_stock ? `Numbers ${errors.from_stock}` : text, values: form, errors }, 400);
    }
    const allocated = await allocateAction.run(workOf(c), row.id, toAllocation(parsed.data));
    if (!allocated.ok) return refusedPage(c, row, allocated.problem, form);
    return c.redirect(`/ops/orders/${row.id}?done=allocated`, 303);
  })
  .post("/orders/:order_id/status", changeGuard(moveOrderAction), async (c) => {
    const row = await pathOrder(c);
    if (!row) return orderNotFound(c);
    const moved = await moveOrderAction.run(workOf(c), row.id, "processing");
    if (!moved.ok) return refusedPage(c, row, moved.problem);
    return c.redirect(`/ops/orders/${row.id}?done=moved`, 303);
  })
  .get("/orders/:order_id/cancel", changeGuard(moveOrderAction), async (c) => {
    const row = await pathOrder(c);
    if (!row) return orderNotFound(c);
    const order = toOrder(row);
    const href = `/ops/orders/${order.order_id}`;
    // An order that may no longer be cancelled goes back to its page, which offers no cancel.
    if (!mayMove(row.status, "cancelled", "operator")) return c.redirect(href, 303);
    return renderPage(
      c,
      { title: `Cancel order ${order.order_number}`, section: SECTION },
      <Confirmation
        token={c.var.csrfToken}
        title={`Cancel order ${order.order_number}?`}
        action={`${href}/cancel`}
        button="Cancel the order"
        cancel={href}
        back="Keep the order"
      >
        <p>
          The order stops for good: no more numbers can be allocated to it, and the account's webhooks are sent order.cancelled.
          The {plural(order.fulfilled_quantity, "number")} already allocated stay the account's.
        </p>
      </Confirmation>,
    );
  })
  .post("/orders/:order_id/cancel", changeGuard(moveOrderAction), async (c) => {
    const row = await pathOrder(c);
    if (!row) return orderNotFound(c);
    const moved = await moveOrderAction.run(workOf(c), row.id, "cancelled");
    if (!moved.ok) return refusedPage(c, row, moved.problem);
    return c.redirect(`/ops/orders/${row.id}?done=cancelled`, 303);
  });
