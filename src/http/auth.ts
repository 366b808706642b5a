// The credentials of the operator's audience (ADMIN_TOKEN as a Bearer token), and the reading of credential headers
// both guards share. (The customer API's key guard is the customers feature's: src/customers/api-key-guard.ts.)
import type { MiddlewareHandler } from "hono";
import type { OperatorEnv } from "../env.ts";
import { sha256Hex } from "../lib/api-key.ts";
import { authenticationFailure, refuseSpentAddress } from "./auth-failures.ts";

/** The Bearer token, or undefined when the Authorization header is absent or not a Bearer credential. */
function bearerToken(header: string | undefined): string | undefined {
  const match = header?.match(/^Bearer[ \t]+(\S+)[ \t]*$/i);
  return match?.[1];
}

/**
 * The credential a request presents: Authorization: Bearer and X-API-Key may both be sent only with the same value.
 * A header that is present counts even when it is empty or unusable (`Bearer` alone, `Basic …`): it is a wrong
 * credential, not an absent one, so beside a valid key it is a conflict.
 */
export function presentedCredential(authorization: string | undefined, apiKeyHeader: string | undefined): string | undefined {
  const bearer = bearerToken(authorization);
  if (authorization !== undefined && bearer === undefined) return undefined;
  if (bearer !== undefined && apiKeyHeader !== undefined && bearer !== apiKeyHeader.trim()) return undefined;
  return bearer ?? apiKeyHeader?.trim();
}

/** Compares two SHA-256 digests without leaking, through timing, how many leading bytes agree. */
function digestsEqual(aHex: string, bHex: string): boolean {
  const encoder = new TextEncoder();
  const a = encoder.encode(aHex);
  const b = encoder.encode(bHex);
  return a.byteLength === b.byteLength && crypto.subtle.timingSafeEqual(a, b);
}

/** The operator's ADMIN_TOKEN as a Bearer token; an unset secret refuses every request. Failures count as above. */
export const requireOperator: MiddlewareHandler<OperatorEnv> = async (c, next) => {
  refuseSpentAddress(c);
  // X-API-Key carries no operator credential: present at all, even empty, it conflicts with the token.
  const token = c.req.header("X-API-Key") === undefined ? bearerToken(c.req.header("Authorization")) : undefined;
  const expected = c.env.ADMIN_TOKEN;
  if (!token || !expected || !digestsEqual(await sha256Hex(token), await sha256Hex(expected))) {
    throw await authenticationFailure(c);
  }
  await next();
};
