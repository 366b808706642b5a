// Password hashing for the portal: scrypt (node:crypto, memory-hard; OWASP's password storage cheat sheet: N=2^14,
// r=8, p=5) stored as a PHC string with its parameters, so they can be raised later and old hashes re-hashed on sign-in.
import { randomBytes, scrypt, timingSafeEqual } from "node:crypto";
import { fromBase64, toBase64 } from "./base64.ts";

/** The parameters new hashes use (a test pins them). */
export const SCRYPT_PARAMETERS = { logN: 14, r: 8, p: 5 } as const;
const KEY_LENGTH = 32;
const SALT_LENGTH = 16;
/** 128 · N · r bytes per lane (16 MiB here), with room to spare: node's default cap is 32 MiB. */
const MAX_MEMORY = 64 * 1024 * 1024;
const PHC = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/;

interface Parameters {
  logN: number;
  r: number;
  p: number;
}

function derive(password: string, salt: Uint8Array, { logN, r, p }: Parameters, length: number): Promise<Uint8Array> {
  return new Promise((resolve, reject) =>
    scrypt(password.normalize("NFC"), salt, length, { N: 2 ** logN, r, p, maxmem: MAX_MEMORY }, (error, key) =>
      error ? reject(error) : resolve(new Uint8Array(key)),
    ),
  );
}

/** PHC strings carry base64 without its padding. */
const base64 = (bytes: Uint8Array) => toBase64(bytes).replace(/=+$/, "");

/** `$scrypt$ln=14,r=8,p=5$<salt>$<hash>` (unpadded base64), with a fresh random salt. */
export async function hashPassword(password: string): Promise<string> {
  const salt = new Uint8Array(randomBytes(SALT_LENGTH));
  const { logN, r, p } = SCRYPT_PARAMETERS;
  const key = await derive(password, salt, SCRYPT_PARAMETERS, KEY_LENGTH);
  return `$scrypt$ln=${logN},r=${r},p=${p}$${base64(salt)}$${base64(key)}`;
}

/**
 * Whether `password` matches the stored hash (compared in constant time), and whether the hash was made with other
 * parameters than today's (then the caller stores a new one). A hash it cannot read matches nothing.
 */
export async function verifyPassword(password: string, stored: string): Promise<{ matches: boolean; outdated: boolean }> {
  const match = PHC.exec(stored);
  if (!match) return { matches: false, outdated: false };
  const parameters = { logN: Number(match[1]), r: Number(match[2]), p: Number(match[3]) };
  const expected = fromBase64(match[5]!);
  const key = await derive(password, fromBase64(match[4]!), parameters, expected.byteLength);
  const matches = timingSafeEqual(key, expected);
  const { logN, r, p } = SCRYPT_PARAMETERS;
  return { matches, outdated: parameters.logN !== logN || parameters.r !== r || parameters.p !== p };
}

/**
 * A hash of no one's password, for a sign-in with an unknown e-mail: verifying against it costs what a real check
 * costs, so the answer's timing does not say whether the e-mail exists.
 */
export const DECOY_HASH = "$scrypt$ln=14,r=8,p=5$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
