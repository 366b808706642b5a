// What the portal's Find numbers and Reservations pages share: how long numbers are held (minutes, or through a
// profile's review), a reservation's expiry (or its order) in words, and its address.
import type { Database } from "../db/client.ts";
import type { OrderStatus } from "../db/schema.ts";
import { holdsReservedNumbers } from "../orders/lifecycle.ts";
import { PROFILE_STATUSES_HELD_THROUGH, TTL_MINUTES } from "../reservations/lifecycle.ts";
import type { Reservation } from "../reservations/schemas.ts";
import { Time } from "../ui/components.tsx";
import { plural } from "../ui/format.ts";
import { formInteger, Select } from "../ui/forms.tsx";
import { type ProfileChoices, ProfileSelect, profileChoices } from "./kyc-parts.tsx";

/** The hold times a page offers, in minutes (the API takes any whole number of minutes within TTL_MINUTES). */
const TTL_CHOICES = [5, 15, 30, 60, 120, 240, 480, 1440].filter(
  (minutes) => minutes >= TTL_MINUTES.min && minutes <= TTL_MINUTES.max,
);

function minutesInWords(minutes: number): string {
  return minutes % 60 === 0 ? plural(minutes / 60, "hour") : plural(minutes, "minute");
}

export function reservationHref(reservation: Pick<Reservation, "id">): string {
  return `/portal/reservations/${reservation.id}`;
}

/** A choice of how long to hold numbers from now; `blank` names the choice of none (the API's default). */
export function TtlSelect({
  value,
  error,
  blank,
  hint,
}: {
  value: string | undefined;
  error: string | readonly string[] | undefined;
  blank?: string;
  hint?: string;
}) {
  return (
    <Select
      name="ttl_minutes"
      label="Hold for"
      value={value}
      blank={blank}
      options={TTL_CHOICES.map((minutes) => [String(minutes), minutesInWords(minutes)] as const)}
      error={error}
      hint={hint}
    />
  );
}

/** The account's profiles whose review is open: a reservation may be held through one of them. */
export async function profilesUnderReview(db: Database, customerId: string): Promise<ProfileChoices> {
  const choices = await profileChoices(db, customerId);
  const open = choices.options?.filter((o) => (PROFILE_STATUSES_HELD_THROUGH as readonly string[]).includes(o.status));
  return { options: open, names: choices.names };
}

/** How long a new reservation holds its numbers: a time, or through a profile's review (not both: the API says so). */
export function HoldFields({
  values,
  errors,
  profiles,
}: {
  values: Record<string, string>;
  errors: Record<string, string | readonly string[]>;
  profiles: ProfileChoices;
}) {
  return (
    <fieldset class="checks">
      <legend>How long</legend>
      <TtlSelect
        value={values.ttl_minutes}
        error={errors.ttl_minutes}
        blank={`${minutesInWords(TTL_MINUTES.default)} (the default)`}
      />
      <ProfileSelect
        name="hold_for_profile"
        label="Hold for profile"
        value={values.hold_for_profile}
        error={errors.hold_for_profile}
        blank="No profile"
        hint="Or, instead of a time: through the review of a profile that is pending or under review (at most 14 days, until 24 hours after its review ends)"
        choices={profiles}
      />
    </fieldset>
  );
}

/** The hold of the API's create body from the form's fields (each absent when left blank). */
export function holdOf(form: Record<string, string>) {
  return {
    ttl_minutes: formInteger(form.ttl_minutes),
    hold_for_profile: form.hold_for_profile?.trim() ? form.hold_for_profile.trim() : undefined,
  };
}

/** The order placed from a reservation, as its Expiry names it; its status when read (a page), else only its number. */
export interface PlacedOrder {
  id: string;
  number: string;
  status?: OrderStatus;
}

/** An ordered reservation: its numbers are held while its order is open, and free once that order is done. */
function OrderedAs({ order }: { order: PlacedOrder | undefined }) {
  if (!order) return <>ordered</>;
  const link = <a href={`/portal/orders/${order.id}`}>{order.number}</a>;
  if (order.status === undefined) return <>ordered as {link}</>;
  if (holdsReservedNumbers(order.status)) return <>held for order {link}</>;
  return (
    <span class="muted">
      ordered as {link}, now {order.status}
    </span>
  );
}

/** When the reservation's numbers are free again, and through whose review they are held, as a list and a page say. */
export function Expiry({
  reservation,
  profileName,
  order,
}: {
  reservation: Reservation;
  profileName: string | undefined;
  order?: PlacedOrder | undefined;
}) {
  if (reservation.status === "ordered") return <OrderedAs order={order} />;
  if (reservation.status !== "active") {
    return (
      <span class="muted">
        {reservation.status} <Time time={reservation.status === "expired" ? reservation.expires_at : reservation.updated_at} />
      </span>
    );
  }
  return (
    <>
      until <Time time={reservation.expires_at} />
      {reservation.hold_for_profile ? (
        <span class="hint">
          {" "}
          held through{" "}
          <a href={`/portal/profiles/${reservation.hold_for_profile}`}>{profileName ?? reservation.hold_for_profile}</a>'s review
        </span>
      ) : null}
    </>
  );
}
