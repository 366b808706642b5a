// A select of the account's orders that have numbers, for the profile and Numbers pages.
import type { Database } from "../db/client.ts";
import { pageWindow } from "../db/paging.ts";
import type { OrderRow } from "../db/schema.ts";
import { words } from "../lib/words.ts";
import { listOrders } from "../orders/list.ts";
import { formatOrderNumber, orderIdParam } from "../orders/schemas.ts";
import { findOrder } from "../orders/store.ts";
import { plural } from "../ui/format.ts";
import { Select } from "../ui/forms.tsx";

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
