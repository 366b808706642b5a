// Wire format of events: the event object (as the events API lists it and as a webhook delivers it), one schema per
// shape of `data`, and the list's query.
import { z } from "@hono/zod-openapi";
import { EVENT_TYPES, type EventRow } from "../db/schema.ts";
import { timestampSchema } from "../http/fields.ts";
import { commaList, pageQuery, pageSchema } from "../http/pagination.ts";
import { documentSummarySchema, verificationSchema } from "../kyc/schemas.ts";
import { withPrefix } from "../lib/ids.ts";
import { toIso } from "../lib/time.ts";
import { allocationSchema } from "../numbers/schemas.ts";
import { orderSchema } from "../orders/schemas.ts";

/** Event types by the shape of their data; together, every type of EVENT_TYPES once (a test holds them to it). */
export const EVENT_TYPES_BY_DATA = {
  order: ["order.created", "order.updated", "order.processing", "order.fulfilled", "order.cancelled"],
  allocation: ["order.numbers_allocated"],
  verification: ["kyc.submitted", "kyc.updated", "kyc.under_review", "kyc.approved", "kyc.rejected"],
  document: ["kyc.document_uploaded", "kyc.document_deleted"],
  test: ["webhook.test"],
} as const;

const envelope = {
  id: z
    .string()
    .openapi({ example: "evt_8c5e2b1a-3f4d-4e6a-9b7c-1d2e3f4a5b6c", description: "Also the webhook-id of its deliveries." }),
  timestamp: timestampSchema.openapi({ description: "When the change happened." }),
};

const orderEventSchema = z
  .object({ ...envelope, type: z.enum(EVENT_TYPES_BY_DATA.order), data: orderSchema })
  .openapi("OrderEvent", { description: "An order changed: `data` is the order as it stands after the change." });

const allocationEventSchema = z
  .object({
    ...envelope,
    type: z.enum(EVENT_TYPES_BY_DATA.allocation),
    data: allocationSchema,
  })
  .openapi("NumbersAllocatedEvent", { description: "Numbers were allocated to an order." });

const verificationEventSchema = z
  .object({ ...envelope, type: z.enum(EVENT_TYPES_BY_DATA.verification), data: verificationSchema })
  .openapi("KycVerificationEvent", { description: "A verification changed: `data` is the verification after the change." });

const documentEventSchema = z
  .object({
    ...envelope,
    type: z.enum(EVENT_TYPES_BY_DATA.document),
    data: z.object({ kyc_id: z.string(), number_id: z.string(), document: documentSummarySchema }),
  })
  .openapi("KycDocumentEvent", { description: "A document was uploaded to or deleted from a verification." });

const testEventSchema = z
  .object({
    ...envelope,
    type: z.enum(EVENT_TYPES_BY_DATA.test),
    data: z.object({ webhook_endpoint_id: z.string().openapi({ example: "we_3f1f7f9c-2d11-4b8c-9a51-0b7e8f5e4a8e" }) }),
  })
  .openapi("WebhookTestEvent", { description: "Sent on request to one endpoint, to try it." });

/** The event schema of each shape of data, by the name EVENT_TYPES_BY_DATA gives the shape. */
export const EVENT_SCHEMAS_BY_DATA = {
  order: orderEventSchema,
  allocation: allocationEventSchema,
  verification: verificationEventSchema,
  document: documentEventSchema,
  test: testEventSchema,
} as const satisfies Record<keyof typeof EVENT_TYPES_BY_DATA, z.ZodType>;

export const eventSchema = z
  .discriminatedUnion("type", [
    EVENT_SCHEMAS_BY_DATA.order,
    EVENT_SCHEMAS_BY_DATA.allocation,
    EVENT_SCHEMAS_BY_DATA.verification,
    EVENT_SCHEMAS_BY_DATA.document,
    EVENT_SCHEMAS_BY_DATA.test,
  ])
  .openapi("Event");

export type Event = z.infer<typeof eventSchema>;

/** The event object; `data` is stored as the JSON the API answered at the time. */
export function toEvent(row: Pick<EventRow, "id" | "type" | "data" | "createdAt">): Event {
  return { id: withPrefix("evt", row.id), type: row.type, timestamp: toIso(row.createdAt), data: JSON.parse(row.data) } as Event;
}

export const listEventsQuery = z.object({
  page: pageQuery.page,
  limit: pageQuery.limit,
  type: commaList(z.enum(EVENT_TYPES), "type", "Event types."),
});

export const eventPageSchema = pageSchema(eventSchema, "Event");
