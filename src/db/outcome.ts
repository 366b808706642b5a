// The result of a store write that may be refused: the store determines the reason, a route maps it to a problem.

/** Every reason a store may refuse, with what each carries. */
interface Reasons {
  /** The thing does not exist, or is another account's (which is the same to the caller). */
  not_found: Record<never, never>;
  /** A value that must be unique is taken: a slug, an email, a number's verification. */
  duplicate: Record<never, never>;
  /** The (country_code, number_type) pair is not in the orderable catalog. */
  not_orderable: { countryCode: string; numberType: string };
  /** The number has no verification yet. */
  not_submitted: Record<never, never>;
  /** The number's verification is its profile's (kyp_ id, bare): changed through the profile only. */
  managed_by_profile: { profileId: string };
  /** The order named is not one of the account's. */
  unknown_order: Record<never, never>;
  /** The profile named is not one of the account's. */
  unknown_profile: Record<never, never>;
  /** Something still uses the thing (numbers attached, open orders naming it). */
  in_use: { detail: string };
  /** The number was released: its verification is kept as a record, not changed or reviewed. */
  number_released: Record<never, never>;
  /** The thing's current state does not allow the change. */
  wrong_state: { state: string };
  /** The thing changed between the read that judged the request and the write (a pending order's profile). */
  changed_meanwhile: Record<never, never>;
  /** The thing already holds as many as it may. */
  full: { limit: number };
  /** More numbers than the order has left to allocate. */
  over_quantity: { remaining: number };
  /** Phone numbers that are allocated already, anywhere. */
  numbers_taken: { phoneNumbers: string[] };
  /** Phone numbers the stock holds for another (country_code, number_type) pair. */
  stocked_elsewhere: { phoneNumbers: string[] };
  /** Phone numbers a reservation holds for another holder (not lapsed, not the order's own reservation). */
  held: { phoneNumbers: string[] };
  /** The order was placed from a reservation: its pair and quantity are the reservation's, never changed. */
  from_reservation: Record<never, never>;
  /** Phone numbers the stock holds in quarantine (back from a released tenure, not yet available). */
  quarantined: { phoneNumbers: string[] };
  /** The stock of a pair holds fewer numbers than asked for. */
  insufficient_stock: { available: number };
}

export type RefusalReason = keyof Reasons;

export type Refusal<R extends RefusalReason = RefusalReason> = {
  [K in R]: { ok: false; reason: K } & Reasons[K];
}[R];

export type Outcome<T, R extends RefusalReason> = { ok: true; value: T } | Refusal<R>;

export function ok<T>(value: T): { ok: true; value: T } {
  return { ok: true, value };
}

export function refuse<R extends RefusalReason>(
  reason: R,
  ...details: keyof Reasons[R] extends never ? [] : [Reasons[R]]
): Refusal<R> {
  return { ok: false, reason, ...details[0] } as Refusal<R>;
}

/**
 * Why a guarded change of a thing wrote nothing, from a read of it afterwards: it is not there, or its state forbids
 * the change.
 */
export function refusalByState(current: { status: string } | undefined): Refusal<"not_found" | "wrong_state"> {
  return current ? refuse("wrong_state", { state: current.status }) : refuse("not_found");
}

/** The value of an outcome the caller cannot go on without (scripts that seed data); a refusal throws, saying `what`. */
export function valueOrThrow<T>(outcome: Outcome<T, RefusalReason>, what: string): T {
  if (!outcome.ok) throw new Error(`${what} was refused (${outcome.reason})`);
  return outcome.value;
}
