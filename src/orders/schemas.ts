// Wire format of orders and the mapping between wire and store.
import { z } from "@hono/zod-openapi";
import { customerSlugFilter } from "../customers/schemas.ts";
import { OPEN_ORDER_STATUSES, ORDER_STATUSES, type OrderRow } from "../db/schema.ts";
import {
  countryCodeSchema,
  integerParam,
  multiLineText,
  numberTypeSchema,
  prefixedId,
  timestampSchema,
  uuidParam,
} from "../http/fields.ts";
import {
  commaList,
  countedPageSchema,
  dateQuery,
  pageQuery,
  searchQuery,
  sortByQuery,
  sortOrderQuery,
  statusCountsSchema,
} from "../http/pagination.ts";
import { inOrder, whenFieldsValid } from "../http/validation.ts";
import { withPrefix } from "../lib/ids.ts";
import { endOfDay, startOfDay, toIso, toIsoOrNull } from "../lib/time.ts";
import { ORDER_SORT_KEYS, type OrderListQuery } from "./list-query.ts";
import { type OrderQueueQuery, QUEUE_SORT_KEYS, type QueuedOrder } from "./queue.ts";
import type { OrderChanges, OrderRequest } from "./store.ts";

/** The most numbers one order asks for. */
export const MAX_QUANTITY = 10_000;
/** The longest notes of an order, in characters. */
export const MAX_NOTES_LENGTH = 1_000;
const quantitySchema = z.int().min(1).max(MAX_QUANTITY).openapi({ example: 100 });
const notesSchema = multiLineText().max(MAX_NOTES_LENGTH).nullable().openapi({ example: "Numbers for the Austin call centre" });
const orderStatusSchema = z.enum(ORDER_STATUSES);

export const orderSchema = z
  .object({
    order_id: z.uuid(),
    order_number: z.string().openapi({ example: "#000042" }),
    number_type: z.string().openapi({ example: "mobile" }),
    country_code: z.string().openapi({ example: "US" }),
    quantity: z.int().openapi({ example: 100 }),
    status: orderStatusSchema,
    fulfilled_quantity: z.int().openapi({ example: 0 }),
    notes: z.string().nullable(),
    requested_at: timestampSchema,
    fulfilled_at: timestampSchema.nullable(),
    created_at: timestampSchema,
    updated_at: timestampSchema,
    kyc_profile_id: z.string().nullable().openapi({
      description: "The profile the order's numbers join when allocated (kyp_…), null when none.",
      example: null,
    }),
    reservation_id: z.string().nullable().openapi({
      description: "The reservation the order was placed from (res_…): its numbers are held for the order. null when none.",
      example: null,
    }),
  })
  .openapi("Order");

export type Order = z.infer<typeof orderSchema>;

/** "#" followed by at least six digits: #000001, #999999, #1000000. */
export function formatOrderNumber(seq: number): string {
  return `#${String(seq).padStart(6, "0")}`;
}

export function toOrder(row: OrderRow): Order {
  return {
    order_id: row.id,
    order_number: formatOrderNumber(row.orderSeq),
    number_type: row.numberType,
    country_code: row.countryCode,
    quantity: row.quantity,
    status: row.status,
    fulfilled_quantity: row.fulfilledQuantity,
    notes: row.notes,
    requested_at: toIso(row.requestedAt),
    fulfilled_at: toIsoOrNull(row.fulfilledAt),
    created_at: toIso(row.createdAt),
    updated_at: toIso(row.updatedAt),
    kyc_profile_id: row.kycProfileId === null ? null : withPrefix("kyp", row.kycProfileId),
    reservation_id: row.reservationId === null ? null : withPrefix("res", row.reservationId),
  };
}

const kycProfileIdSchema = prefixedId("kyp")
  .nullable()
  .openapi({
    description:
      "A profile of the account, compliant for the order's pair (else 400 requirements_not_met naming each unmet " +
      "requirement): the order's numbers join it when allocated. null: none.",
  });

/** What an order from a reservation takes from it, so its body must not name them. */
const FIELDS_OF_RESERVATION = ["number_type", "country_code", "quantity"] as const;

export const createOrderBody = z
  .strictObject({
    reservation_id: prefixedId("res")
      .optional()
      .openapi({
        description:
          "An active reservation of the account (else 409 reservation_not_active; another account's 404): the order " +
          "takes its pair and count, and its numbers stay held for the order. Not with number_type, country_code or quantity.",
      }),
    number_type: numberTypeSchema.optional().openapi({ description: "Required unless reservation_id is given." }),
    country_code: countryCodeSchema.optional().openapi({ description: "Required unless reservation_id is given." }),
    quantity: quantitySchema.optional().openapi({ description: "Required unless reservation_id is given." }),
    notes: notesSchema.optional(),
    kyc_profile_id: kycProfileIdSchema.optional().openapi({
      description:
        "A profile of the account, compliant for the order's pair (else 400 requirements_not_met naming each unmet " +
        "requirement): the order's numbers join it when allocated. null: none. From a reservation held for a " +
        "profile, it defaults to that profile.",
    }),
  })
  .superRefine((body, ctx) => {
    for (const field of FIELDS_OF_RESERVATION) {
      const given = body[field] !== undefined;
      if (given === (body.reservation_id !== undefined)) {
        ctx.addIssue({
          code: "custom",
          path: [field],
          message: given ? "must not be given with reservation_id: the order takes it from the reservation" : "is required",
          input: body[field],
        });
      }
    }
  })
  .openapi("CreateOrder");

export const updateOrderBody = z
  .strictObject({
    number_type: numberTypeSchema.optional(),
    country_code: countryCodeSchema.optional(),
    quantity: quantitySchema.optional(),
    notes: notesSchema.optional().openapi({ description: "null clears the notes." }),
    kyc_profile_id: kycProfileIdSchema.optional(),
  })
  .refine((body) => Object.keys(body).length > 0, {
    error: "must contain at least one field to change",
  })
  .openapi("UpdateOrder");

/** The order a create body asks for: of a pair, or from a reservation (whose pair and count it takes). */
export function toOrderRequest(body: z.infer<typeof createOrderBody>): OrderRequest {
  const { reservation_id: reservationId, notes, kyc_profile_id: kycProfileId } = body;
  if (reservationId !== undefined) return { reservationId, notes, kycProfileId };
  // The body's check makes the three present without a reservation.
  const { number_type: numberType, country_code: countryCode, quantity } = body as Required<typeof body>;
  return { numberType, countryCode, quantity, notes, kycProfileId };
}

export function toOrderChanges(body: z.infer<typeof updateOrderBody>): OrderChanges {
  return {
    numberType: body.number_type,
    countryCode: body.country_code,
    quantity: body.quantity,
    notes: body.notes,
    kycProfileId: body.kyc_profile_id,
  };
}

const quantityBoundQuery = (name: string, description: string) =>
  integerParam({ min: 1 })
    .optional()
    .openapi({ param: { name, in: "query" }, description });

export const listOrdersQuery = z
  .object({
    ...pageQuery,
    search: searchQuery,
    number_type: commaList(numberTypeSchema, "number_type", "Number types."),
    country_code: commaList(countryCodeSchema, "country_code", "Country codes."),
    status: commaList(orderStatusSchema, "status", "Order statuses."),
    quantity_min: quantityBoundQuery("quantity_min", "Orders with at least this quantity."),
    quantity_max: quantityBoundQuery("quantity_max", "Orders with at most this quantity."),
    requested_from: dateQuery("requested_from", "Requested on or after this UTC day (inclusive)."),
    requested_to: dateQuery("requested_to", "Requested on or before this UTC day (inclusive)."),
    fulfilled_from: dateQuery("fulfilled_from", "Fulfilled on or after this UTC day (inclusive)."),
    fulfilled_to: dateQuery("fulfilled_to", "Fulfilled on or before this UTC day (inclusive)."),
    sort_by: sortByQuery(ORDER_SORT_KEYS, "created_at"),
  })
  .refine((q) => inOrder(q.quantity_min, q.quantity_max), {
    path: ["quantity_min"],
    error: "must not be greater than the maximum quantity",
    when: whenFieldsValid("quantity_min", "quantity_max"),
  })
  .refine((q) => inOrder(q.requested_from, q.requested_to), {
    path: ["requested_from"],
    error: "must not be after the last day requested",
    when: whenFieldsValid("requested_from", "requested_to"),
  })
  .refine((q) => inOrder(q.fulfilled_from, q.fulfilled_to), {
    path: ["fulfilled_from"],
    error: "must not be after the last day fulfilled",
    when: whenFieldsValid("fulfilled_from", "fulfilled_to"),
  });

/** The list query as the store takes it: days become their first and last millisecond. */
export function toOrderListQuery(q: z.infer<typeof listOrdersQuery>): OrderListQuery {
  const day = (date: string | undefined, edge: (date: string) => number) => (date === undefined ? undefined : edge(date));
  return {
    search: q.search,
    numberTypes: q.number_type,
    countryCodes: q.country_code,
    statuses: q.status,
    quantityMin: q.quantity_min,
    quantityMax: q.quantity_max,
    requestedFrom: day(q.requested_from, startOfDay),
    requestedTo: day(q.requested_to, endOfDay),
    fulfilledFrom: day(q.fulfilled_from, startOfDay),
    fulfilledTo: day(q.fulfilled_to, endOfDay),
    sortBy: q.sort_by,
    sortOrder: q.sort_order,
  };
}

const orderStatusCountsSchema = statusCountsSchema(ORDER_STATUSES, "OrderStatusCounts");

export const orderPageSchema = countedPageSchema(orderSchema, "Order", orderStatusCountsSchema);

/** The operator's queue: every account's orders, open ones unless asked for others, oldest first. */
export const orderQueueQuery = z
  .object({
    page: pageQuery.page,
    limit: pageQuery.limit,
    status: commaList(orderStatusSchema, "status", `Order statuses; default ${OPEN_ORDER_STATUSES.join(",")}.`),
    customer_slug: customerSlugFilter,
    country_code: commaList(countryCodeSchema, "country_code", "Country codes."),
    number_type: commaList(numberTypeSchema, "number_type", "Number types."),
    requested_from: dateQuery("requested_from", "Requested on or after this UTC day (inclusive)."),
    requested_to: dateQuery("requested_to", "Requested on or before this UTC day (inclusive)."),
    sort_by: sortByQuery(QUEUE_SORT_KEYS, "requested_at"),
    sort_order: sortOrderQuery("asc"),
  })
  .refine((q) => inOrder(q.requested_from, q.requested_to), {
    path: ["requested_from"],
    error: "must not be after the last day requested",
    when: whenFieldsValid("requested_from", "requested_to"),
  });

export function toOrderQueueQuery(q: z.infer<typeof orderQueueQuery>): OrderQueueQuery {
  return {
    statuses: q.status ?? OPEN_ORDER_STATUSES,
    customerSlug: q.customer_slug,
    countryCodes: q.country_code,
    numberTypes: q.number_type,
    requestedFrom: q.requested_from === undefined ? undefined : startOfDay(q.requested_from),
    requestedTo: q.requested_to === undefined ? undefined : endOfDay(q.requested_to),
    sortBy: q.sort_by,
    sortOrder: q.sort_order,
  };
}

export const queuedOrderSchema = orderSchema
  .extend({
    customer_slug: z.string(),
    age_hours: z.int().openapi({ description: "Whole hours since requested_at." }),
    stock_available: z
      .int()
      .openapi({ description: "Numbers available in stock for the order's country and type (not quarantined or reserved)." }),
  })
  .openapi("QueuedOrder");

export const orderQueuePageSchema = countedPageSchema(queuedOrderSchema, "OrderQueue", orderStatusCountsSchema);

export function toQueuedOrder(row: QueuedOrder, now: number): z.infer<typeof queuedOrderSchema> {
  return {
    ...toOrder(row.order),
    customer_slug: row.customerSlug,
    age_hours: Math.max(0, Math.floor((now - row.order.requestedAt) / 3_600_000)),
    stock_available: row.stockAvailable,
  };
}

export const orderIdParam = uuidParam("order_id");

export const orderStatusChangeBody = z
  .strictObject({
    status: orderStatusSchema.openapi({
      description: "processing or cancelled.",
    }),
  })
  .openapi("OrderStatusChange");
