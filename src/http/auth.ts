// Authentication: customer API keys (Bearer or X-API-Key), the account scope of /api/customers/{slug}, and the admin token.
import type { MiddlewareHandler } from "hono";
import { findKeyOwnerByHash, isLastUsedStale, touchApiKey } from "../accounts/store.ts";
import type { AppEnv } from "../env.ts";
import { isWellFormedApiKey, sha256Hex } from "../lib/api-key.ts";
import { ApiError, notFound, unauthorized } from "./problem.ts";

/** The Bearer token, or undefined when the Authorization header is absent or not a Bearer credential. */
function bearerToken(header: string | undefined): string | undefined {
  const match = header?.match(/^Bearer[ \t]+(\S+)[ \t]*$/i);
  return match?.[1];
}

/**
 * The credential a request presents: Authorization: Bearer and X-API-Key may both be sent only with the same value.
 * An Authorization header that is not a Bearer credential counts as a wrong credential, not as an absent one.
 */
function presentedCredential(authorization: string | undefined, apiKeyHeader: string | undefined): string | undefined {
  const bearer = bearerToken(authorization);
  if (authorization !== undefined && bearer === undefined) return undefined;
  if (bearer !== undefined && apiKeyHeader !== undefined && bearer !== apiKeyHeader.trim()) return undefined;
  return bearer ?? apiKeyHeader?.trim();
}

/** Compares two SHA-256 digests without leaking, through timing, how many leading bytes agree. */
async function digestsEqual(aHex: string, bHex: string): Promise<boolean> {
  const encoder = new TextEncoder();
  const a = encoder.encode(aHex);
  const b = encoder.encode(bHex);
  return a.byteLength === b.byteLength && crypto.subtle.timingSafeEqual(a, b);
}

export const requireApiKey: MiddlewareHandler<AppEnv> = async (c, next) => {
  const key = presentedCredential(c.req.header("Authorization"), c.req.header("X-API-Key"));
  if (key === undefined || !isWellFormedApiKey(key)) throw unauthorized();
  const keyHash = await sha256Hex(key);
  const owner = await findKeyOwnerByHash(c.var.db, keyHash);
  if (!owner || !(await digestsEqual(owner.keyHash, keyHash)) || owner.revokedAt !== null) throw unauthorized();

  c.set("principal", { customerId: owner.customerId, customerSlug: owner.customerSlug, apiKeyId: owner.keyId });
  const now = Date.now();
  if (isLastUsedStale(owner.lastUsedAt, now)) c.executionCtx.waitUntil(touchApiKey(c.var.db, owner.keyId, now));
  await next();
};

/** Customer routes name their account in the path; any other account's slug is reported as not found. */
export const requireOwnSlug: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (c.req.param("customer_slug") !== c.var.principal.customerSlug) throw notFound("Customer");
  await next();
};

export const requireAdmin: MiddlewareHandler<AppEnv> = async (c, next) => {
  const token = bearerToken(c.req.header("Authorization"));
  const expected = c.env.ADMIN_TOKEN;
  if (!token || !expected || !(await digestsEqual(await sha256Hex(token), await sha256Hex(expected)))) {
    throw unauthorized();
  }
  await next();
};

/** Per-key request budget from the Workers rate limiting binding; over it, 429 with Retry-After. */
export const rateLimitByKey: MiddlewareHandler<AppEnv> = async (c, next) => {
  const { success } = await c.env.API_RATE_LIMITER.limit({ key: c.var.principal.apiKeyId });
  if (!success) {
    throw new ApiError("rate_limited", "Too many requests for this API key; retry after the period", {
      headers: { "Retry-After": "60" },
    });
  }
  await next();
};
