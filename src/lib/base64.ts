// Base64 via btoa/atob (no Buffer in the Worker without nodejs_compat): standard, and unpadded URL-safe.

export function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** Standard or unpadded base64 to bytes (atob forgives missing padding). */
export function fromBase64(text: string): Uint8Array {
  return Uint8Array.from(atob(text), (char) => char.charCodeAt(0));
}

/** URL-safe base64 without padding (RFC 4648 §5): safe in a path, a query, a cookie. */
export function toBase64Url(bytes: Uint8Array): string {
  return toBase64(bytes).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}
