// The Reservation as the API answers it (and as reservation.* events carry it).
import { z } from "@hono/zod-openapi";
import { RESERVATION_STATUSES, type ReservationRow } from "../db/schema.ts";
import { countryCodeSchema, e164Schema, numberTypeSchema, prefixedId, prefixedIdParam, timestampSchema } from "../http/fields.ts";
import { commaList, pageQuery, pageSchema } from "../http/pagination.ts";
import { withPrefix } from "../lib/ids.ts";
import { toIso } from "../lib/time.ts";
import { MAX_RESERVATION_NUMBERS, statusAt, TTL_MINUTES } from "./lifecycle.ts";
import type { ReservationRequest } from "./use-cases.ts";

export const reservationSchema = z
  .object({
    id: z.string().openapi({ example: "res_6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f" }),
    status: z.enum(RESERVATION_STATUSES).openapi({
      description:
        "active (its numbers held until expires_at), ordered (held for its order until that order is fulfilled or " +
        "cancelled), expired or cancelled (its numbers available again). An active reservation past expires_at is expired.",
    }),
    country_code: z.string().openapi({ example: "US" }),
    number_type: z.string().openapi({ example: "mobile" }),
    phone_numbers: z.array(z.string()).openapi({ description: "The reserved numbers, in phone-number order." }),
    expires_at: timestampSchema,
    hold_for_profile: z.string().nullable().openapi({
      description: "The profile (kyp_…) whose review the numbers are held through, or null.",
      example: null,
    }),
    order_id: z.uuid().nullable().openapi({ description: "The order placed from it, once ordered.", example: null }),
    created_at: timestampSchema,
    updated_at: timestampSchema,
  })
  .openapi("Reservation");

export type Reservation = z.infer<typeof reservationSchema>;

/** The reservation as it stands at `now` (an active one past its time reads as expired). */
export function toReservation(row: ReservationRow, phoneNumbers: readonly string[], now: number): Reservation {
  return {
    id: withPrefix("res", row.id),
    status: statusAt(row, now),
    country_code: row.countryCode,
    number_type: row.numberType,
    phone_numbers: [...phoneNumbers].sort(),
    expires_at: toIso(row.expiresAt),
    hold_for_profile: row.holdForProfile === null ? null : withPrefix("kyp", row.holdForProfile),
    order_id: row.orderId,
    created_at: toIso(row.createdAt),
    updated_at: toIso(row.updatedAt),
  };
}

const ttlMinutesSchema = z
  .int()
  .min(TTL_MINUTES.min)
  .max(TTL_MINUTES.max)
  .openapi({ description: `Minutes the numbers are held from now, ${TTL_MINUTES.min} to ${TTL_MINUTES.max}.`, example: 60 });

export const createReservationBody = z
  .strictObject({
    phone_numbers: z
      .array(e164Schema)
      .min(1)
      .max(MAX_RESERVATION_NUMBERS)
      .optional()
      .openapi({ description: `These numbers, 1 to ${MAX_RESERVATION_NUMBERS}, all of one country and type.` }),
    country_code: countryCodeSchema.optional(),
    number_type: numberTypeSchema.optional(),
    quantity: z
      .int()
      .min(1)
      .max(MAX_RESERVATION_NUMBERS)
      .optional()
      .openapi({ description: "The first this many available numbers of the pair, in phone-number order.", example: 10 }),
    starts_with: z
      .string()
      .regex(/^\+?[0-9]{1,15}$/, { error: "must be 1 to 15 digits, optionally after a +" })
      .transform((digits) => digits.replace(/^\+/, ""))
      .optional()
      .openapi({
        description: "With quantity: only numbers starting with these digits (the country code first).",
        example: "1415",
      }),
    ttl_minutes: ttlMinutesSchema.optional().openapi({ description: `Default ${TTL_MINUTES.default}.` }),
    hold_for_profile: prefixedId("kyp")
      .optional()
      .openapi({
        description:
          "A profile of the account whose review is open (pending or under_review): the numbers are held through it, " +
          "at most 14 days, and until 24 hours after its review ends. Not with ttl_minutes.",
      }),
  })
  .superRefine((body, ctx) => {
    const issue = (path: string, message: string) => ctx.addIssue({ code: "custom", path: [path], message });
    if (body.phone_numbers !== undefined) {
      for (const field of ["country_code", "number_type", "quantity", "starts_with"] as const) {
        if (body[field] !== undefined) issue(field, "must not be given beside phone_numbers");
      }
    } else {
      for (const field of ["country_code", "number_type", "quantity"] as const) {
        if (body[field] === undefined) issue(field, "is required unless phone_numbers is given");
      }
    }
    if (body.ttl_minutes !== undefined && body.hold_for_profile !== undefined) {
      issue("ttl_minutes", "must not be given beside hold_for_profile");
    }
  })
  .openapi("CreateReservation");

/** The reservation's numbers as a use case takes them: distinct numbers, or a pair and how many. */
export function toReservationRequest(body: z.infer<typeof createReservationBody>): ReservationRequest {
  const hold =
    body.hold_for_profile === undefined
      ? { ttlMinutes: body.ttl_minutes ?? TTL_MINUTES.default }
      : { holdForProfile: body.hold_for_profile };
  if (body.phone_numbers !== undefined) return { phoneNumbers: body.phone_numbers, ...hold };
  return {
    pair: { countryCode: body.country_code!, numberType: body.number_type! },
    quantity: body.quantity!,
    startsWith: body.starts_with,
    ...hold,
  };
}

export const extendReservationBody = z.strictObject({ ttl_minutes: ttlMinutesSchema }).openapi("ExtendReservation");

export const listReservationsQuery = z.object({
  page: pageQuery.page,
  limit: pageQuery.limit,
  status: commaList(z.enum(RESERVATION_STATUSES), "status", "Reservation statuses (as they stand now)."),
});

export const reservationPageSchema = pageSchema(reservationSchema, "Reservation");

export const reservationIdParam = prefixedIdParam("res", "reservation_id");
