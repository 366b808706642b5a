// Per-address limit on failed authentication. Once an address's budget is spent the isolate refuses it before hashing
// or looking up its credential, so guessing keys costs neither CPU nor D1 reads.
import type { Context } from "hono";
import type { AppEnv } from "../env.ts";
import { Problem, unauthorized } from "../lib/problem.ts";

/** AUTH_FAILURE_LIMITER's period in wrangler.toml: how long a refused address stays refused. */
const PERIOD_MS = 60_000;
/** Requests without CF-Connecting-IP (only local tools and tests send none) share one bucket. */
const NO_ADDRESS = "no-address";

/** Addresses this isolate has seen spend their budget, with when their refusal ends; oldest first. */
const refusedUntil = new Map<string, number>();
const REFUSED_CAPACITY = 10_000;

/**
 * The bucket of a client address: an IPv4 address itself; an IPv6 address by its /64, the block one subscriber is
 * usually given, so a client cannot get a fresh budget by walking its own block.
 */
function addressBucket(address: string | undefined): string {
  if (!address) return NO_ADDRESS;
  // IPv4, and IPv6 forms that embed one (::ffff:192.0.2.1), are kept whole.
  if (address.includes(".") || !address.includes(":")) return address;
  const [head = "", tail] = address.toLowerCase().split("::");
  const groups = head === "" ? [] : head.split(":");
  if (tail !== undefined) {
    const tailGroups = tail === "" ? [] : tail.split(":");
    groups.push(...Array<string>(Math.max(0, 8 - groups.length - tailGroups.length)).fill("0"), ...tailGroups);
  }
  return `${groups
    .slice(0, 4)
    .map((group) => group.replace(/^0+(?=.)/, ""))
    .join(":")}::/64`;
}

function bucketOf<E extends AppEnv>(c: Context<E>): string {
  return addressBucket(c.req.header("CF-Connecting-IP"));
}

function rateLimited(retryAfterSeconds: number): Problem {
  return new Problem("rate_limited", "Too many failed authentications from this address; retry after the period", {
    headers: { "Retry-After": String(retryAfterSeconds) },
  });
}

/** Throws 429 when this isolate saw the request's address spend its budget in the current period. */
export function refuseSpentAddress<E extends AppEnv>(c: Context<E>): void {
  const bucket = bucketOf(c);
  const until = refusedUntil.get(bucket);
  if (until === undefined) return;
  const left = until - c.var.now;
  if (left > 0) throw rateLimited(Math.ceil(left / 1000));
  refusedUntil.delete(bucket);
}

/**
 * Counts a failed authentication against the request's address: the answer is `refusal` (401, or another for a
 * credential that could not be judged), or 429 once the budget is spent.
 */
export async function authenticationFailure<E extends AppEnv>(
  c: Context<E>,
  refusal: Problem = unauthorized(),
): Promise<Problem> {
  const bucket = bucketOf(c);
  const { success } = await c.env.AUTH_FAILURE_LIMITER.limit({ key: bucket });
  if (success) return refusal;
  refusedUntil.delete(bucket);
  refusedUntil.set(bucket, c.var.now + PERIOD_MS);
  if (refusedUntil.size > REFUSED_CAPACITY) refusedUntil.delete(refusedUntil.keys().next().value!);
  return rateLimited(PERIOD_MS / 1000);
}
