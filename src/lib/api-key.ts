// API key format: "vnk_" + 32 random base62 characters (190 bits) + a 6-character CRC-32 checksum. Web Crypto only, so
// local scripts mint keys with the same code as the Worker.
import { crc32 } from "./crc32.ts";

export const API_KEY_PREFIX = "vnk_";
const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const SECRET_LENGTH = 32;
const CHECKSUM_LENGTH = 6;
const API_KEY_PATTERN = new RegExp(`^${API_KEY_PREFIX}[0-9A-Za-z]{${SECRET_LENGTH + CHECKSUM_LENGTH}}$`);

function checksumOf(body: string): string {
  let value = crc32(new TextEncoder().encode(body));
  let out = "";
  for (let i = 0; i < CHECKSUM_LENGTH; i++) {
    out = ALPHABET[value % 62]! + out;
    value = Math.floor(value / 62);
  }
  return out;
}

function randomBase62(length: number): string {
  let out = "";
  while (out.length < length) {
    for (const byte of crypto.getRandomValues(new Uint8Array(length * 2))) {
      // 248 = 4 * 62: rejecting the bytes above it keeps every character equally likely.
      if (byte < 248 && out.length < length) out += ALPHABET[byte % 62];
    }
  }
  return out;
}

export function generateApiKey(): string {
  const body = API_KEY_PREFIX + randomBase62(SECRET_LENGTH);
  return body + checksumOf(body);
}

/** Shape and checksum only: a mistyped or made-up key is rejected without touching the database. */
export function isWellFormedApiKey(candidate: string): boolean {
  if (!API_KEY_PATTERN.test(candidate)) return false;
  const body = candidate.slice(0, -CHECKSUM_LENGTH);
  return checksumOf(body) === candidate.slice(-CHECKSUM_LENGTH);
}

/** The part of a key that may be shown again after creation. */
export function displayParts(key: string): {
  prefix: string;
  lastFour: string;
} {
  return {
    prefix: key.slice(0, API_KEY_PREFIX.length + 4),
    lastFour: key.slice(-4),
  };
}

const HEX_BYTES = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, "0"));

/** Lowercase hex SHA-256; what is stored instead of the key. */
export async function sha256Hex(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
  let hex = "";
  for (const byte of digest) hex += HEX_BYTES[byte];
  return hex;
}
