// An order's details, shared by the portal's and the console's order pages.
import type { Child } from "hono/jsx";
import { words } from "../lib/words.ts";
import { dateTime } from "../ui/format.ts";
import type { Order } from "./schemas.ts";

export function OrderFacts({
  order,
  profile,
  account,
  inStock,
  reservation,
}: {
  order: Order;
  /** The profile as the page links it (or a dash for none). */
  profile: Child;
  account?: Child;
  inStock?: Child;
  /** The reservation it was placed from, as the page links it. */
  reservation?: Child;
}) {
  return (
    <div class="card">
      <dl class="facts">
        {account === undefined ? null : (
          <>
            <dt>Account</dt>
            <dd>{account}</dd>
          </>
        )}
        <dt>Number type</dt>
        <dd>{words(order.number_type)}</dd>
        <dt>Country</dt>
        <dd>{order.country_code}</dd>
        <dt>Quantity</dt>
        <dd>{order.quantity}</dd>
        <dt>Fulfilled</dt>
        <dd>{order.fulfilled_quantity}</dd>
        {inStock === undefined ? null : (
          <>
            <dt>In stock</dt>
            <dd>{inStock}</dd>
          </>
        )}
        {reservation === undefined ? null : (
          <>
            <dt>Reservation</dt>
            <dd>{reservation}</dd>
          </>
        )}
        <dt>Notes</dt>
        <dd>{order.notes ?? "—"}</dd>
        <dt>Profile</dt>
        <dd>{profile}</dd>
        <dt>Requested</dt>
        <dd>{dateTime(order.requested_at)}</dd>
        <dt>Fulfilled at</dt>
        <dd>{dateTime(order.fulfilled_at)}</dd>
        <dt>Last change</dt>
        <dd>{dateTime(order.updated_at)}</dd>
      </dl>
    </div>
  );
}
