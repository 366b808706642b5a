// Standard Webhooks signatures (v1, symmetric): HMAC-SHA256 with WebCrypto, as the Worker has no node:crypto.

import { fromBase64, toBase64 } from "../lib/base64.ts";

const SECRET_PREFIX = "whsec_";
const encoder = new TextEncoder();

/** The secrets that sign a delivery at `now`: the endpoint's own, and the one before a rotation until it expires. */
export function signingSecrets(
  endpoint: { secret: string; previousSecret: string | null; previousSecretExpiresAt: number | null },
  now: number,
): string[] {
  const { secret, previousSecret, previousSecretExpiresAt } = endpoint;
  const previousValid = previousSecret !== null && previousSecretExpiresAt !== null && previousSecretExpiresAt > now;
  return previousValid ? [secret, previousSecret] : [secret];
}

/**
 * The `webhook-signature` header: `v1,<base64 HMAC-SHA256>` of `{id}.{timestamp}.{body}` for each secret (keyed with
 * its base64-decoded part), space-separated, so a receiver holding either secret of a rotation can verify.
 */
export async function signatureHeader(secrets: readonly string[], id: string, timestamp: number, body: string): Promise<string> {
  const content = encoder.encode(`${id}.${timestamp}.${body}`);
  const signatures = await Promise.all(
    secrets.map(async (secret) => {
      const key = await crypto.subtle.importKey("raw", secretKeyBytes(secret), { name: "HMAC", hash: "SHA-256" }, false, [
        "sign",
      ]);
      const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, content));
      return `v1,${toBase64(mac)}`;
    }),
  );
  return signatures.join(" ");
}

function secretKeyBytes(secret: string): Uint8Array {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  return fromBase64(encoded);
}
