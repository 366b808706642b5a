// AES-GCM sealing under a key derived (HKDF-SHA-256) from a secret the reader must hold, for confidentiality and
// integrity at rest or in a browser cookie.
import { fromBase64, toBase64 } from "./base64.ts";

const IV_BYTES = 12;
const encoder = new TextEncoder();

/** The AES-GCM key of `secret` for one use: `salt` and `info` keep the keys of different uses apart. */
export async function sealingKey(secret: string, salt: string, info: string): Promise<CryptoKey> {
  const material = await crypto.subtle.importKey("raw", encoder.encode(secret), "HKDF", false, ["deriveKey"]);
  return crypto.subtle.deriveKey(
    { name: "HKDF", hash: "SHA-256", salt: encoder.encode(salt), info: encoder.encode(info) },
    material,
    { name: "AES-GCM", length: 256 },
    false,
    ["encrypt", "decrypt"],
  );
}

/** The text sealed: a random IV and the ciphertext with its tag, base64. */
export async function seal(text: string, key: CryptoKey): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
  const sealed = new Uint8Array(await crypto.subtle.encrypt({ name: "AES-GCM", iv }, key, encoder.encode(text)));
  const out = new Uint8Array(IV_BYTES + sealed.byteLength);
  out.set(iv);
  out.set(sealed, IV_BYTES);
  return toBase64(out);
}

/** The text `seal` sealed with this key; throws when it was sealed with another key or changed since. */
export async function unseal(sealed: string, key: CryptoKey): Promise<string> {
  const bytes = fromBase64(sealed);
  const plain = await crypto.subtle.decrypt({ name: "AES-GCM", iv: bytes.subarray(0, IV_BYTES) }, key, bytes.subarray(IV_BYTES));
  return new TextDecoder().decode(plain);
}
