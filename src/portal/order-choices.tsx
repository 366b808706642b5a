// Choices of orders: a select of the account's orders that have numbers (the profile and Numbers pages), and an order's
// notes and profile (a new order, an order from a reservation).
import type { Database } from "../db/client.ts";
import { pageWindow } from "../db/paging.ts";
import type { OrderRow } from "../db/schema.ts";
import { words } from "../lib/words.ts";
import { listOrders } from "../orders/list.ts";
import { formatOrderNumber, MAX_NOTES_LENGTH, orderIdParam } from "../orders/schemas.ts";
import { findOrder } from "../orders/store.ts";
import { plural } from "../ui/format.ts";
import { Select, TextArea } from "../ui/forms.tsx";
import { type ProfileChoices, ProfileSelect } from "./kyc-parts.tsx";

/** How many of the account's most recent orders with numbers a choice offers. */
export const ORDERS_OFFERED = 50;

/**
 * The account's most recent orders being processed or fulfilled (those that have numbers), and the order `chosen` (a
 * link's or a form's) when it is the account's and not among them.
 */
export async function orderChoices(db: Database, customerId: string, chosen?: string): Promise<OrderRow[]> {
  const chosenId = chosen === undefined ? undefined : orderIdParam.safeParse(chosen);
  const [recent, extra] = await Promise.all([
    listOrders(
      db,
      customerId,
      { statuses: ["processing", "fulfilled"], sortBy: "requested_at", sortOrder: "desc" },
      pageWindow(1, ORDERS_OFFERED),
    ),
    chosenId?.success ? findOrder(db, customerId, chosenId.data) : undefined,
  ]);
  return extra && !recent.rows.some((row) => row.id === extra.id) ? [extra, ...recent.rows] : recent.rows;
}

/** An order in a choice: "#000123 · US mobile · 3 numbers". */
function orderChoiceLabel(order: OrderRow): string {
  return `${formatOrderNumber(order.orderSeq)} · ${order.countryCode} ${words(order.numberType)} · ${plural(order.fulfilledQuantity, "number")}`;
}

/** A select of the orders `orderChoices` gave; a value not among them (a link's, a form's) stays chosen, to be judged. */
export function OrderSelect({
  name,
  label,
  value,
  error,
  hint,
  blank,
  orders,
}: {
  name: string;
  label: string;
  value: string | undefined;
  error?: string | undefined;
  hint?: string | undefined;
  blank: string;
  orders: readonly OrderRow[];
}) {
  const chosen = value?.toLowerCase();
  const options: (readonly [string, string])[] = orders.map((order) => [order.id, orderChoiceLabel(order)] as const);
  if (chosen && !orders.some((order) => order.id === chosen)) options.unshift([chosen, chosen]);
  return <Select name={name} label={label} value={chosen} blank={blank} options={options} error={error} hint={hint} />;
}

/** An order's notes and profile (`blank` names no profile chosen), as a new order and an order from a reservation take them. */
export function NotesAndProfileFields({
  values,
  errors,
  profiles,
  blank = "None",
}: {
  values: Record<string, string>;
  errors: Record<string, string | readonly string[]>;
  profiles: ProfileChoices;
  blank?: string;
}) {
  return (
    <>
      <TextArea
        name="notes"
        label="Notes"
        value={values.notes}
        error={errors.notes}
        hint={`Optional, up to ${MAX_NOTES_LENGTH.toLocaleString("en-US")} characters`}
      />
      <ProfileSelect
        name="kyc_profile_id"
        label="Profile"
        value={values.kyc_profile_id}
        error={errors.kyc_profile_id}
        blank={blank}
        hint="Optional: the numbers join this profile when allocated; it must meet the requirements of the country and type"
        choices={profiles}
      />
    </>
  );
}
