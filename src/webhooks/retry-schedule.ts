// When a failed delivery is retried: the Standard Webhooks schedule with jitter, or the receiver's Retry-After.

/** The waits after each failed attempt, in seconds: after the last one the delivery has failed (10 attempts in all). */
export const RETRY_DELAYS_SECONDS = [5, 300, 1_800, 7_200, 18_000, 36_000, 50_400, 72_000, 86_400] as const;

/** Each wait is stretched or shrunk by up to this fraction, so deliveries that failed together do not retry together. */
const RETRY_JITTER = 0.1;

/**
 * The wait in whole seconds (the queue's delays are integers) after `attempts` attempts that all failed, with `random`
 * in [0, 1) choosing the jitter; null when that was the last attempt.
 */
export function retryDelaySeconds(attempts: number, random: () => number): number | null {
  const base = RETRY_DELAYS_SECONDS[attempts - 1];
  if (base === undefined) return null;
  return Math.round(base * (1 + RETRY_JITTER * (2 * random() - 1)));
}

/**
 * The longest wait a Retry-After is honoured for: a week, well inside the 30 days a delivery is kept. Beyond it a
 * receiver's answer ("wait a year", or more digits than a number holds) would leave the delivery pending, neither
 * attempted nor retryable, until the purge.
 */
export const MAX_RETRY_AFTER_SECONDS = 7 * 86_400;

/**
 * The seconds a Retry-After header asks to wait (RFC 9110: delta-seconds or an HTTP-date), measured from `now` and at
 * most MAX_RETRY_AFTER_SECONDS; null when absent or unreadable. A date in the past asks for no wait.
 */
export function retryAfterSeconds(header: string | null, now: number): number | null {
  if (header === null) return null;
  const value = header.trim();
  const date = /^\d+$/.test(value) ? null : Date.parse(value);
  const seconds = date === null ? Number(value) : Number.isNaN(date) ? null : Math.ceil((date - now) / 1000);
  return seconds === null ? null : Math.min(Math.max(0, seconds), MAX_RETRY_AFTER_SECONDS);
}
