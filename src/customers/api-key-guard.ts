// The customer API's guard: an API key (Bearer or X-API-Key) scoped to its account and rate-limited. A key this isolate
// already knows is checked with the request's first D1 call, and side effects wait for that check
// (src/http/side-effects.ts).
import type { Context, MiddlewareHandler } from "hono";
import { READ_METHODS } from "../db/session.ts";
import type { CustomerEnv, Principal } from "../env.ts";
import { presentedCredential } from "../http/auth.ts";
import { authenticationFailure, refuseSpentAddress } from "../http/auth-failures.ts";
import { type CarriedCheck, carriedAssertion, carriedRead, confirmedRequest } from "../http/carried-check.ts";
import { isWellFormedApiKey, sha256Hex } from "../lib/api-key.ts";
import { describeError } from "../lib/describe-error.ts";
import { notFound, Problem } from "../lib/problem.ts";
import {
  activeKeyAssertion,
  findKeyOwnerByHash,
  isLastUsedStale,
  keyStateQuery,
  lastUsedUpdate,
  readKeyState,
  touchApiKey,
} from "./store.ts";

/** A key this isolate has seen: who it belongs to (never changes) and when it was last marked used. */
interface KnownKey {
  principal: Principal;
  lastUsedAt: number | null;
}

/** Keys seen recently by this isolate, by key hash, least recently used first. */
const knownKeys = new Map<string, KnownKey>();
const KNOWN_KEYS_CAPACITY = 10_000;

function remember(keyHash: string, known: KnownKey): void {
  knownKeys.delete(keyHash);
  knownKeys.set(keyHash, known);
  if (knownKeys.size > KNOWN_KEYS_CAPACITY) knownKeys.delete(knownKeys.keys().next().value!);
}

/** Whether to write last_used_at now (at most once a minute per key and isolate); assumes the write happens. */
function markUse(known: KnownKey, now: number): boolean {
  if (!isLastUsedStale(known.lastUsedAt, now)) return false;
  known.lastUsedAt = now;
  return true;
}

/**
 * Every request checks that its key exists and is not revoked. With a key this isolate already knows, that check
 * rides on the request's first D1 call instead of costing a round trip of its own:
 * - a read carries the key's state and its answer is refused afterwards if the key was revoked: a read changes
 *   nothing, so nothing is lost by deciding late;
 * - a write carries an assertion that the key is active, in front of its own statements in the same batch, so a
 *   revoked key's write rolls back whole;
 * - every other side effect (an R2 write, a queue send) waits for the check first (src/http/side-effects.ts), so it
 *   never happens for a revoked key, whatever a handler does first.
 * A key the isolate does not know yet is looked up before anything else. Every failure counts against the client's
 * address, and an address that spent its budget is refused before anything else.
 */
export const requireApiKey: MiddlewareHandler<CustomerEnv> = async (c, next) => {
  refuseSpentAddress(c);
  const key = presentedCredential(c.req.header("Authorization"), c.req.header("X-API-Key"));
  if (key === undefined) throw await authenticationFailure(c);
  const keyHash = await sha256Hex(key);

  const known = knownKeys.get(keyHash);
  if (!known) {
    if (!isWellFormedApiKey(key)) throw await authenticationFailure(c);
    const owner = await findKeyOwnerByHash(c.var.db, keyHash);
    if (!owner || owner.revokedAt !== null) throw await authenticationFailure(c);
    const found = {
      principal: {
        customerId: owner.customerId,
        customerSlug: owner.customerSlug,
        apiKeyId: owner.keyId,
      },
      lastUsedAt: owner.lastUsedAt,
    };
    remember(keyHash, found);
    identify(c, found.principal);
    await next();
    // After the answer, so the write never delays it.
    if (markUse(found, c.var.now)) touchAfterAnswer(c, owner.keyId, c.var.now);
    return;
  }

  remember(keyHash, known);
  identify(c, known.principal);
  const check = READ_METHODS.has(c.req.method) ? readCheck(c, known) : writeCheck(c, known);
  // Nothing acts for a revoked key: not a side effect before the first D1 call, nor a D1 call after it.
  await confirmedRequest(c, check, next, async () => {
    knownKeys.delete(keyHash);
    return authenticationFailure(c);
  });
};

/** Writes the key's last use after the answer; a failure costs only that mark, and is logged. */
function touchAfterAnswer(c: Context<CustomerEnv>, keyId: string, now: number): void {
  c.executionCtx.waitUntil(
    touchApiKey(c.var.db, keyId, now).catch((error: unknown) =>
      console.log(
        JSON.stringify({
          level: "warn",
          event: "last-used-not-written",
          request_id: c.var.requestId,
          error: describeError(error),
        }),
      ),
    ),
  );
}

function identify(c: Context<CustomerEnv>, principal: Principal): void {
  c.set("principal", principal);
  c.set("actor", { type: "api_key", id: principal.apiKeyId });
  c.var.log.customerId = principal.customerId;
}

/** A read's check: the key's state rides with the read's first D1 call (or goes alone when an act asks first). */
function readCheck(c: Context<CustomerEnv>, known: KnownKey): CarriedCheck {
  return carriedRead(c, keyStateQuery(c.var.db, known.principal.apiKeyId), (rows) => {
    const current = readKeyState(rows);
    if (!current || current.revokedAt !== null) return false;
    known.lastUsedAt = Math.max(current.lastUsedAt ?? 0, known.lastUsedAt ?? 0) || null;
    if (markUse(known, c.var.now)) touchAfterAnswer(c, known.principal.apiKeyId, c.var.now);
    return true;
  });
}

/** A write's check: an assertion that the key is active in front of its first batch (and, when due, its last use). */
function writeCheck(c: Context<CustomerEnv>, known: KnownKey): CarriedCheck {
  const { apiKeyId } = known.principal;
  const check = carriedAssertion(c, activeKeyAssertion(c.var.db, apiKeyId));
  if (markUse(known, c.var.now)) c.var.session.carry(lastUsedUpdate(c.var.db, apiKeyId, c.var.now));
  return check;
}

/** Customer routes name their account in the path; any other account's slug is reported as not found. */
export const requireOwnAccount: MiddlewareHandler<CustomerEnv> = async (c, next) => {
  if (c.req.param("customer_slug") !== c.var.principal.customerSlug) throw notFound("Customer");
  await next();
};

/** Per-key request budget from the Workers rate limiting binding; over it, 429 with Retry-After. */
export const rateLimitByKey: MiddlewareHandler<CustomerEnv> = async (c, next) => {
  const { success } = await c.env.API_RATE_LIMITER.limit({
    key: c.var.principal.apiKeyId,
  });
  if (!success) {
    throw new Problem("rate_limited", "Too many requests for this API key; retry after the period", {
      headers: { "Retry-After": "60" },
    });
  }
  await next();
};
