// The Reservation as the API answers it (and as reservation.* events carry it).
import { z } from "@hono/zod-openapi";
import { RESERVATION_STATUSES, type ReservationRow } from "../db/schema.ts";
import { timestampSchema } from "../http/fields.ts";
import { withPrefix } from "../lib/ids.ts";
import { toIso } from "../lib/time.ts";
import { statusAt } from "./lifecycle.ts";

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
