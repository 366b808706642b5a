// The portal's Reservations: the list, a reservation's page, and its extend, cancel and "Order these", through the
// same use cases as the API (src/reservations/use-cases.ts, placeOrder); what each state allows comes from
// src/reservations/lifecycle.ts through the actions' `available`.
import type { Context } from "hono";
import { pageWindow } from "../db/paging.ts";
import { RESERVATION_STATUSES, type ReservationRow } from "../db/schema.ts";
import type { PortalEnv } from "../env.ts";
import { pageMeta } from "../http/pagination.ts";
import { workOf } from "../http/request-context.ts";
import { createRouter } from "../http/router.ts";
import { findProfileNames } from "../kyc/profiles-store.ts";
import { availableOn } from "../lib/action.ts";
import type { Problem } from "../lib/problem.ts";
import { words } from "../lib/words.ts";
import { createOrderBody, formatOrderNumber, toOrderRequest } from "../orders/schemas.ts";
import { findOrder } from "../orders/store.ts";
import { placeOrder } from "../orders/use-cases.ts";
import { isActive } from "../reservations/lifecycle.ts";
import {
  extendReservationBody,
  listReservationsQuery,
  type Reservation,
  reservationIdParam,
  toReservation,
} from "../reservations/schemas.ts";
import { findReservation, listReservations, type ReservationWithNumbers } from "../reservations/store.ts";
import { cancelReservationAction, extendReservationAction } from "../reservations/use-cases.ts";
import { ordersOfReservations } from "../stock/holders.ts";
import { Badge, Confirmation, CsrfField, Notice, Pager, pageNotice, Table, Time } from "../ui/components.tsx";
import { notFoundPage } from "../ui/error-page.tsx";
import { plural, withQuery } from "../ui/format.ts";
import { fieldMessages, formInteger, PerPageField, problemFieldLists, readForm } from "../ui/forms.tsx";
import { FilterForm, type FilterProps, listFilters, StatusFilterField } from "../ui/list-filters.tsx";
import { renderPage } from "../ui/renderer.tsx";
import { profileChoices } from "./kyc-parts.tsx";
import { NotesAndProfileFields } from "./order-choices.tsx";
import { placedOrderHref } from "./orders-pages.tsx";
import { Expiry, reservationHref, TtlSelect } from "./reservation-parts.tsx";

const LIST = "/portal/reservations";
type Errors = Record<string, string | readonly string[]>;

const DONE: Record<string, string> = {
  reserved: "The numbers are reserved for you.",
  extended: "The reservation is extended.",
  cancelled: "The reservation is cancelled: its numbers are available to anyone again.",
};

function ReservationFilters({ values, errors }: FilterProps) {
  return (
    <FilterForm action={LIST} values={values}>
      <StatusFilterField values={values} errors={errors} statuses={RESERVATION_STATUSES} />
      <PerPageField values={values} errors={errors} />
    </FilterForm>
  );
}

/** The names of the profiles the reservations are held through, by bare id. */
function holdNames(c: Context<PortalEnv>, rows: readonly ReservationWithNumbers[]) {
  const ids = rows.flatMap(({ reservation }) => (reservation.holdForProfile ? [reservation.holdForProfile] : []));
  return findProfileNames(c.var.db, c.var.visitor.customer.id, [...new Set(ids)]);
}

function profileNameOf(names: Map<string, string>, row: ReservationRow): string | undefined {
  return row.holdForProfile === null ? undefined : names.get(row.holdForProfile);
}

/** The pair in words: "US mobile". */
function pairOf(reservation: Reservation): string {
  return `${reservation.country_code} ${words(reservation.number_type)}`;
}

interface Forms {
  values?: Record<string, string>;
  errors?: Errors;
  notice?: { kind: "error" | "success"; text: string };
}

async function reservationPage(c: Context<PortalEnv>, found: ReservationWithNumbers, forms: Forms = {}, status = 200) {
  const { db, visitor, now } = c.var;
  const row = found.reservation;
  const reservation = toReservation(row, found.phoneNumbers, now);
  // The same predicate placeOrder refuses an order from a reservation by (src/orders/use-cases.ts).
  const orderable = isActive(row, now);
  const [names, order, profiles] = await Promise.all([
    holdNames(c, [found]),
    row.orderId ? findOrder(db, visitor.customer.id, row.orderId) : undefined,
    orderable ? profileChoices(db, visitor.customer.id) : undefined,
  ]);
  const profileName = profileNameOf(names, row);
  const href = reservationHref(reservation);
  const notice = pageNotice(c, DONE, forms.notice, status);
  const values = forms.values ?? {};
  const errors = forms.errors ?? {};
  const title = `Reservation of ${plural(row.quantity, `${words(row.numberType)} number`)} in ${row.countryCode}`;
  return renderPage(
    c,
    { title, section: "reservations" },
    <>
      <p>
        <a href={LIST}>← Reservations</a>
      </p>
      <h1>
        {title} <Badge status={reservation.status} />
      </h1>
      {notice ? <Notice kind={notice.kind}>{notice.text}</Notice> : null}
      <div class="card">
        <dl class="facts">
          <dt>Held</dt>
          <dd>
            <Expiry
              reservation={reservation}
              profileName={profileName}
              order={order && { id: order.id, number: formatOrderNumber(order.orderSeq), status: order.status }}
            />
          </dd>
          <dt>Order</dt>
          <dd>{order ? <a href={`/portal/orders/${order.id}`}>Order {formatOrderNumber(order.orderSeq)}</a> : "—"}</dd>
          <dt>Reserved</dt>
          <dd>
            <Time time={reservation.created_at} />
          </dd>
          <dt>Id</dt>
          <dd>{reservation.id}</dd>
        </dl>
      </div>
      {orderable && profiles ? (
        <form method="post" action={`${href}/order`} class="stack card" aria-label="Order these" novalidate>
          <CsrfField token={visitor.csrfToken} />
          <h2>Order these numbers</h2>
          <NotesAndProfileFields
            values={values}
            errors={errors}
            profiles={profiles}
            blank={reservation.hold_for_profile ? `${profileName ?? reservation.hold_for_profile} (held through)` : "None"}
          />
          <div class="actions">
            <button type="submit">Order these</button>
          </div>
        </form>
      ) : null}
      {availableOn(extendReservationAction, row, now) ? (
        <form method="post" action={`${href}/extend`} class="stack card" aria-label="Extend" novalidate>
          <CsrfField token={visitor.csrfToken} />
          <TtlSelect
            value={values.ttl_minutes}
            error={errors.ttl_minutes}
            hint="From now; at most 24 hours after it was reserved"
          />
          <div class="actions">
            <button type="submit">Extend</button>
          </div>
        </form>
      ) : null}
      {availableOn(cancelReservationAction, row, now) ? (
        <p class="actions">
          <a class="button secondary" href={`${href}/cancel`}>
            Cancel the reservation…
          </a>
        </p>
      ) : null}
      <h2>Numbers</h2>
      <Table label="Reserved numbers" rows={reservation.phone_numbers} columns={[{ label: "Number", cell: (phone) => phone }]} />
    </>,
    status,
  );
}

function reservationNotFound(c: Context<PortalEnv>) {
  return notFoundPage(c, {
    what: "Reservation",
    section: "reservations",
    back: { href: LIST, label: "Back to the reservations" },
  });
}

/** The visitor's reservation by the path's id; another account's, or a malformed id, is not found. */
async function visitorsReservation(c: Context<PortalEnv>): Promise<ReservationWithNumbers | undefined> {
  const id = reservationIdParam.safeParse(c.req.param("reservation_id"));
  return id.success ? findReservation(c.var.db, c.var.visitor.customer.id, id.data) : undefined;
}

/** The reservation's page again after a refusal: its words, beside the fields; the reservation as it is now. */
async function refusedPage(
  c: Context<PortalEnv>,
  found: ReservationWithNumbers,
  problem: Problem,
  values: Record<string, string>,
) {
  if (problem.code === "not_found") return reservationNotFound(c);
  const now = (await findReservation(c.var.db, c.var.visitor.customer.id, found.reservation.id)) ?? found;
  const notice = { kind: "error" as const, text: problem.message };
  return reservationPage(c, now, { values, errors: problemFieldLists(problem), notice }, problem.status);
}

/** A form's refusal by the API's schema: each error beside its field. */
function invalidPage(c: Context<PortalEnv>, found: ReservationWithNumbers, values: Record<string, string>, errors: Errors) {
  const notice = { kind: "error" as const, text: "The form has problems; each is shown beside its field." };
  return reservationPage(c, found, { values, errors, notice }, 400);
}

export const reservationPages = createRouter<PortalEnv>()
  .get("/reservations", async (c) => {
    const filters = listFilters(c, listReservationsQuery, { title: "Reservations", section: "reservations" }, (props) => (
      <ReservationFilters {...props} />
    ));
    if ("answer" in filters) return filters.answer;
    const { raw, query } = filters;
    const window = pageWindow(query.page, query.limit);
    const list = await listReservations(c.var.db, c.var.visitor.customer.id, query.status, window, c.var.now, false);
    const [names, orders] = await Promise.all([
      holdNames(c, list.rows),
      ordersOfReservations(
        c.var.db,
        list.rows.flatMap(({ reservation }) => (reservation.orderId ? [reservation.id] : [])),
      ),
    ]);
    // The list counts a reservation's numbers by its quantity: it shows none of them.
    const rows = list.rows.map(({ reservation }) => {
      const order = orders.get(reservation.id);
      return {
        ...toReservation(reservation, [], c.var.now),
        quantity: reservation.quantity,
        profileName: profileNameOf(names, reservation),
        order: order && { id: order.id, number: formatOrderNumber(order.orderSeq) },
      };
    });
    return renderPage(
      c,
      { title: "Reservations", section: "reservations" },
      <>
        <div class="page-head">
          <h1>Reservations</h1>
          <a class="button" href="/portal/find-numbers">
            Find numbers
          </a>
        </div>
        <ReservationFilters values={raw} errors={{}} />
        {rows.length === 0 ? (
          <div class="card empty">
            <p>
              No reservations match. <a href="/portal/find-numbers">Find numbers</a> to reserve some.
            </p>
          </div>
        ) : (
          <Table
            label="Reservations"
            rows={rows}
            columns={[
              {
                label: "Reserved",
                cell: (r) => (
                  <a href={reservationHref(r)}>
                    <Time time={r.created_at} />
                  </a>
                ),
              },
              { label: "Numbers", cell: (r) => `${r.quantity} ${pairOf(r)}` },
              { label: "Status", cell: (r) => <Badge status={r.status} /> },
              { label: "Held", cell: (r) => <Expiry reservation={r} profileName={r.profileName} order={r.order} /> },
              { label: "Order", cell: (r) => (r.order_id ? <a href={`/portal/orders/${r.order_id}`}>Its order</a> : "—") },
            ]}
          />
        )}
        <Pager
          meta={pageMeta(window, list.total)}
          noun="reservation"
          hrefOf={(page) => `${LIST}${withQuery(raw, { page: String(page) })}`}
        />
      </>,
    );
  })
  .get("/reservations/:reservation_id", async (c) => {
    const found = await visitorsReservation(c);
    return found ? reservationPage(c, found) : reservationNotFound(c);
  })
  .post("/reservations/:reservation_id/extend", async (c) => {
    const found = await visitorsReservation(c);
    if (!found) return reservationNotFound(c);
    const form = (await readForm(c)).fields;
    const parsed = extendReservationBody.safeParse({ ttl_minutes: formInteger(form.ttl_minutes) });
    if (!parsed.success) return invalidPage(c, found, form, fieldMessages(parsed.error.issues));
    const extended = await extendReservationAction.run(
      workOf(c),
      c.var.visitor.customer.id,
      found.reservation.id,
      parsed.data.ttl_minutes,
    );
    if (!extended.ok) return refusedPage(c, found, extended.problem, form);
    return c.redirect(`${reservationHref(toReservation(found.reservation, [], c.var.now))}?done=extended`, 303);
  })
  .get("/reservations/:reservation_id/cancel", async (c) => {
    const found = await visitorsReservation(c);
    if (!found) return reservationNotFound(c);
    const reservation = toReservation(found.reservation, found.phoneNumbers, c.var.now);
    const href = reservationHref(reservation);
    if (!availableOn(cancelReservationAction, found.reservation, c.var.now)) return c.redirect(href, 303);
    return renderPage(
      c,
      { title: "Cancel the reservation", section: "reservations" },
      <Confirmation
        token={c.var.visitor.csrfToken}
        title={`Cancel the reservation of ${plural(found.phoneNumbers.length, "number")}?`}
        action={`${href}/cancel`}
        button="Cancel the reservation"
        cancel={href}
        back="Keep the reservation"
      >
        <p>
          Its {plural(found.phoneNumbers.length, `${words(reservation.number_type)} number`)} in {reservation.country_code} are
          available to anyone again at once, and your webhooks are sent reservation.cancelled.
        </p>
      </Confirmation>,
    );
  })
  .post("/reservations/:reservation_id/cancel", async (c) => {
    const found = await visitorsReservation(c);
    if (!found) return reservationNotFound(c);
    const cancelled = await cancelReservationAction.run(workOf(c), c.var.visitor.customer.id, found.reservation.id);
    if (!cancelled.ok) return refusedPage(c, found, cancelled.problem, {});
    return c.redirect(`${reservationHref(toReservation(found.reservation, [], c.var.now))}?done=cancelled`, 303);
  })
  .post("/reservations/:reservation_id/order", async (c) => {
    const found = await visitorsReservation(c);
    if (!found) return reservationNotFound(c);
    const form = (await readForm(c)).fields;
    const parsed = createOrderBody.safeParse({
      reservation_id: toReservation(found.reservation, [], c.var.now).id,
      notes: form.notes?.trim() ? form.notes : undefined,
      kyc_profile_id: form.kyc_profile_id?.trim() ? form.kyc_profile_id.trim() : undefined,
    });
    if (!parsed.success) return invalidPage(c, found, form, fieldMessages(parsed.error.issues));
    const placed = await placeOrder(workOf(c), c.var.visitor.customer.id, toOrderRequest(parsed.data));
    if (!placed.ok) return refusedPage(c, found, placed.problem, form);
    return c.redirect(placedOrderHref(placed.value), 303);
  });
