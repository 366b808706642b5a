// Wire format of events, as the events API lists them and webhooks deliver them.
import { z } from "@hono/zod-openapi";
import { NUMBERS_PER_NUMBER_EVENT } from "../db/outbox.ts";
import { EVENT_TYPES, type EventRow } from "../db/schema.ts";
import { timestampSchema } from "../http/fields.ts";
import { commaList, pageQuery, pageSchema } from "../http/pagination.ts";
import { documentSummarySchema, profileSchema, verificationSchema } from "../kyc/schemas.ts";
import { allocationSchema, numberSchema } from "../numbers/schemas.ts";
import { orderSchema } from "../orders/schemas.ts";
import { reservationSchema } from "../reservations/schemas.ts";
import { eventObject } from "../webhooks/payloads.ts";

/** Event types by the shape of their data; together, every type of EVENT_TYPES once (a test holds them to it). */
export const EVENT_TYPES_BY_DATA = {
  order: ["order.created", "order.updated", "order.processing", "order.fulfilled", "order.cancelled"],
  allocation: ["order.numbers_allocated"],
  verification: [
    "kyc.submitted",
    "kyc.updated",
    "kyc.under_review",
    "kyc.approved",
    "kyc.rejected",
    "kyc.deleted",
    "kyc.expired",
  ],
  verificationExpiring: ["kyc.expiring"],
  document: ["kyc.document_uploaded", "kyc.document_deleted"],
  profile: [
    "kyc_profile.submitted",
    "kyc_profile.updated",
    "kyc_profile.under_review",
    "kyc_profile.approved",
    "kyc_profile.rejected",
    "kyc_profile.deleted",
    "kyc_profile.expired",
  ],
  profileExpiring: ["kyc_profile.expiring"],
  profileDocument: ["kyc_profile.document_uploaded", "kyc_profile.document_deleted"],
  profileNumbers: ["kyc_profile.numbers_attached", "kyc_profile.numbers_detached"],
  numbers: ["number.released", "number.restored", "number.suspended", "number.resumed", "number.updated"],
  reservation: ["reservation.created", "reservation.expired", "reservation.ordered", "reservation.cancelled"],
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

const daysLeft = z.int().openapi({ description: "Days until expires_at, rounded up.", example: 30 });

const verificationExpiringEventSchema = z
  .object({
    ...envelope,
    type: z.enum(EVENT_TYPES_BY_DATA.verificationExpiring),
    data: z.object({ verification: verificationSchema, days_left: daysLeft }),
  })
  .openapi("KycVerificationExpiringEvent", {
    description: "An approved verification expires in 30 days, then in 7 (once each per approval): renew it.",
  });

const profileEventSchema = z
  .object({ ...envelope, type: z.enum(EVENT_TYPES_BY_DATA.profile), data: profileSchema })
  .openapi("KycProfileEvent", {
    description: "A profile changed: `data` is the profile after the change (before, when deleted).",
  });

const profileExpiringEventSchema = z
  .object({
    ...envelope,
    type: z.enum(EVENT_TYPES_BY_DATA.profileExpiring),
    data: z.object({ profile: profileSchema, days_left: daysLeft }),
  })
  .openapi("KycProfileExpiringEvent", {
    description: "An approved profile expires in 30 days, then in 7 (once each per approval): renew it.",
  });

const profileDocumentEventSchema = z
  .object({
    ...envelope,
    type: z.enum(EVENT_TYPES_BY_DATA.profileDocument),
    data: z.object({ profile_id: z.string(), document: documentSummarySchema }),
  })
  .openapi("KycProfileDocumentEvent", { description: "A document was uploaded to or deleted from a profile." });

const profileNumbersEventSchema = z
  .object({
    ...envelope,
    type: z.enum(EVENT_TYPES_BY_DATA.profileNumbers),
    data: z.object({
      profile_id: z.string(),
      number_ids: z.array(z.string()).openapi({ description: "At most 1,000; more numbers, more events." }),
    }),
  })
  .openapi("KycProfileNumbersEvent", { description: "Numbers joined or left a profile." });

const numbersEventSchema = z
  .object({
    ...envelope,
    type: z.enum(EVENT_TYPES_BY_DATA.numbers),
    data: z.object({
      numbers: z
        .array(numberSchema)
        .min(1)
        .max(NUMBERS_PER_NUMBER_EVENT)
        .openapi({
          description: `The numbers after the change, by phone number: 1 to ${NUMBERS_PER_NUMBER_EVENT}; a change of more numbers sends one event per ${NUMBERS_PER_NUMBER_EVENT}.`,
        }),
    }),
  })
  .openapi("NumbersEvent", {
    description:
      "Numbers were released, restored, suspended or resumed, or their tags, reference or release protection changed (number.updated).",
  });

const reservationEventSchema = z
  .object({ ...envelope, type: z.enum(EVENT_TYPES_BY_DATA.reservation), data: reservationSchema })
  .openapi("ReservationEvent", {
    description: "A reservation was created, expired, ordered or cancelled: `data` is the reservation after the change.",
  });

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
  verificationExpiring: verificationExpiringEventSchema,
  document: documentEventSchema,
  profile: profileEventSchema,
  profileExpiring: profileExpiringEventSchema,
  profileDocument: profileDocumentEventSchema,
  profileNumbers: profileNumbersEventSchema,
  numbers: numbersEventSchema,
  reservation: reservationEventSchema,
  test: testEventSchema,
} as const satisfies Record<keyof typeof EVENT_TYPES_BY_DATA, z.ZodType>;

export const eventSchema = z
  .discriminatedUnion("type", [
    EVENT_SCHEMAS_BY_DATA.order,
    EVENT_SCHEMAS_BY_DATA.allocation,
    EVENT_SCHEMAS_BY_DATA.verification,
    EVENT_SCHEMAS_BY_DATA.verificationExpiring,
    EVENT_SCHEMAS_BY_DATA.document,
    EVENT_SCHEMAS_BY_DATA.profile,
    EVENT_SCHEMAS_BY_DATA.profileExpiring,
    EVENT_SCHEMAS_BY_DATA.profileDocument,
    EVENT_SCHEMAS_BY_DATA.profileNumbers,
    EVENT_SCHEMAS_BY_DATA.numbers,
    EVENT_SCHEMAS_BY_DATA.reservation,
    EVENT_SCHEMAS_BY_DATA.test,
  ])
  .openapi("Event");

export type Event = z.infer<typeof eventSchema>;

/** The event object, typed by the shape of its `data`. */
export function toEvent(row: Pick<EventRow, "id" | "type" | "data" | "createdAt">): Event {
  return eventObject(row) as Event;
}

export const listEventsQuery = z.object({
  page: pageQuery.page,
  limit: pageQuery.limit,
  type: commaList(z.enum(EVENT_TYPES), "type", "Event types."),
});

export const eventPageSchema = pageSchema(eventSchema, "Event");
