// Conversion between stored millisecond timestamps or dates and the wire format.

/** A day in milliseconds. */
export const DAY_MS = 86_400_000;

/** Renders a stored timestamp as ISO 8601 UTC with milliseconds, e.g. 2026-11-21T09:30:00.000Z. */
export function toIso(ms: number): string {
  return new Date(ms).toISOString();
}

export function toIsoOrNull(ms: number | null): string | null {
  return ms === null ? null : toIso(ms);
}

/** First millisecond of a UTC calendar day. */
export function startOfDay(date: string): number {
  return Date.parse(`${date}T00:00:00.000Z`);
}

/** Last millisecond of a UTC calendar day, so "on or before" a date includes the whole day. */
export function endOfDay(date: string): number {
  return startOfDay(date) + DAY_MS - 1;
}

/** Today's UTC calendar date as YYYY-MM-DD. */
export function todayUtc(nowMs: number): string {
  return toIso(nowMs).slice(0, 10);
}
