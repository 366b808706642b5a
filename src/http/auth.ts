// Credential header parsing shared by the guards, and the ADMIN_TOKEN check. The guards live in their features.
import type { Context } from "hono";
import type { AppEnv } from "../env.ts";
import { sha256Hex } from "../lib/api-key.ts";

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

/**
 * Whether the request's credential is the operator's ADMIN_TOKEN as a Bearer token; an unset secret matches nothing.
 * X-API-Key carries no operator credential: present at all, even empty, it conflicts with the token.
 */
export async function isAdminToken<E extends AppEnv>(c: Context<E>): Promise<boolean> {
  const token = c.req.header("X-API-Key") === undefined ? bearerToken(c.req.header("Authorization")) : undefined;
  const expected = c.env.ADMIN_TOKEN;
  return Boolean(token && expected && digestsEqual(await sha256Hex(token), await sha256Hex(expected)));
}
