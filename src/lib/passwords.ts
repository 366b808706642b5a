// Password hashing with scrypt (OWASP: N=2^14, r=8, p=5), stored as a PHC string so parameters can be raised later and
// old hashes re-hashed on sign-in.
import { randomBytes, scrypt, timingSafeEqual } from "node:crypto";
import { fromBase64, toBase64 } from "./base64.ts";

/** scrypt's cost: N = 2^logN, block size r, parallelism p. */
export interface ScryptParameters {
  logN: number;
  r: number;
  p: number;
}

/** The parameters new hashes use in production (a test pins them). */
export const SCRYPT_PARAMETERS: ScryptParameters = { logN: 14, r: 8, p: 5 };
/** The lowest N a deployment may ask for (PASSWORD_SCRYPT_LOG_N): 2^10, 16 times cheaper than production's. */
const MIN_LOG_N = 10;

/**
 * The parameters of this deployment: production's, unless PASSWORD_SCRYPT_LOG_N is a whole number from 10 to 13 (the
 * tests set it: a sign-in there costs a sixteenth of production's; wrangler.toml leaves it empty). r and p never change.
 */
export function scryptParameters(logN: string | undefined): ScryptParameters {
  const lower = /^\d{1,2}$/.test(logN ?? "") ? Number(logN) : Number.NaN;
  return lower >= MIN_LOG_N && lower < SCRYPT_PARAMETERS.logN ? { ...SCRYPT_PARAMETERS, logN: lower } : SCRYPT_PARAMETERS;
}

const KEY_LENGTH = 32;
const SALT_LENGTH = 16;
/** 128 · N · r bytes per lane (16 MiB here), with room to spare: node's default cap is 32 MiB. */
const MAX_MEMORY = 64 * 1024 * 1024;
const PHC = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/;

function derive(password: string, salt: Uint8Array, { logN, r, p }: ScryptParameters, length: number): Promise<Uint8Array> {
  return new Promise((resolve, reject) =>
    scrypt(password.normalize("NFC"), salt, length, { N: 2 ** logN, r, p, maxmem: MAX_MEMORY }, (error, key) =>
      error ? reject(error) : resolve(new Uint8Array(key)),
    ),
  );
}

/** PHC strings carry base64 without its padding. */
const base64 = (bytes: Uint8Array) => toBase64(bytes).replace(/=+$/, "");

/** A PHC string of scrypt: `$scrypt$ln=14,r=8,p=5$<salt>$<hash>` (unpadded base64). */
function phc({ logN, r, p }: ScryptParameters, salt: Uint8Array, key: Uint8Array): string {
  return `$scrypt$ln=${logN},r=${r},p=${p}$${base64(salt)}$${base64(key)}`;
}

/** The password's hash with `parameters` and a fresh random salt, as a PHC string. */
export async function hashPassword(password: string, parameters: ScryptParameters): Promise<string> {
  const salt = new Uint8Array(randomBytes(SALT_LENGTH));
  return phc(parameters, salt, await derive(password, salt, parameters, KEY_LENGTH));
}

/**
 * Whether `password` matches the stored hash (compared in constant time), and whether the hash was made with other
 * parameters than `current` (then the caller stores a new one). A hash it cannot read matches nothing.
 */
export async function verifyPassword(
  password: string,
  stored: string,
  current: ScryptParameters,
): Promise<{ matches: boolean; outdated: boolean }> {
  const match = PHC.exec(stored);
  if (!match) return { matches: false, outdated: false };
  const parameters = { logN: Number(match[1]), r: Number(match[2]), p: Number(match[3]) };
  const expected = fromBase64(match[5]!);
  const key = await derive(password, fromBase64(match[4]!), parameters, expected.byteLength);
  const matches = timingSafeEqual(key, expected);
  const { logN, r, p } = current;
  return { matches, outdated: parameters.logN !== logN || parameters.r !== r || parameters.p !== p };
}

/**
 * A hash of no one's password with `parameters`, for a sign-in with an unknown e-mail: verifying against it costs what a
 * real check costs, so the answer's timing does not say whether the e-mail exists.
 */
export function decoyHash(parameters: ScryptParameters): string {
  return phc(parameters, new Uint8Array(SALT_LENGTH), new Uint8Array(KEY_LENGTH));
}
