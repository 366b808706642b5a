// Verifies the Cloudflare Access JWT in front of /admin and /ops with hono/jwt's verifyWithJwks, never trusting the
// network: RS256 only, `kid` required, this application's audience and team issuer, and 60 s leeway on exp/nbf/iat.
import { decode, verifyWithJwks } from "hono/jwt";
import type { HonoJsonWebKey } from "hono/utils/jwt/jws";
import type { Bindings } from "../env.ts";
import { describeError } from "../lib/describe-error.ts";
import { Problem } from "../lib/problem.ts";

/** Where Access puts its token: this header (a bare JWT, no scheme), else this cookie; a present header alone decides. */
export const ACCESS_HEADER = "Cf-Access-Jwt-Assertion";
export const ACCESS_COOKIE = "CF_Authorization";

const LEEWAY_SECONDS = 60;
/** Keys fetched from the team are kept at most this long by an isolate. */
const KEYS_MAX_AGE_MS = 60 * 60_000;
/** The team's keys are asked for at most this often (for a token naming a key the isolate lacks, or after a failure). */
const REFETCH_INTERVAL_MS = 60_000;
/** Longer than Access takes to answer: a request waits no longer for the keys. */
const FETCH_TIMEOUT_MS = 5_000;

type AccessSettings = Pick<Bindings, "ACCESS_TEAM_DOMAIN" | "ACCESS_AUD" | "ACCESS_JWKS">;

interface KeySet {
  keys: HonoJsonWebKey[];
  fetchedAt: number;
}

/**
 * The team's keys by certs URL, per isolate (a fetch under way is shared), with when each URL was last asked, read or
 * not: a failed fetch counts as a fetch, so an outage of Access costs one outbound request a minute, not one a token.
 * And ACCESS_JWKS parsed, by its text.
 */
const fetchedKeys = new Map<string, KeySet>();
const fetchingKeys = new Map<string, Promise<HonoJsonWebKey[]>>();
const lastAttempts = new Map<string, number>();
const configuredKeys = new Map<string, HonoJsonWebKey[]>();

function keysOf(jwks: unknown): HonoJsonWebKey[] {
  const keys = (jwks as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(keys)) throw new Error("a JWKS needs a keys array");
  return keys as HonoJsonWebKey[];
}

/** The issuer as Access writes it: the team domain as an https origin, without a trailing slash. */
function issuerOf(teamDomain: string): string {
  const trimmed = teamDomain.trim().replace(/\/+$/, "");
  return /^https?:\/\//.test(trimmed) ? trimmed : `https://${trimmed}`;
}

/**
 * A token that cannot be judged now: the team has no keys this isolate can use (none read yet, or the last read over
 * an hour ago) and reading them failed, or must wait until `retryAfterSeconds` have passed.
 */
export class AccessKeysUnavailable {
  readonly retryAfterSeconds: number;

  constructor(retryAfterSeconds: number) {
    this.retryAfterSeconds = retryAfterSeconds;
  }

  /** The answer for now (503), not a verdict on the token. */
  problem(): Problem {
    return new Problem(
      "service_unavailable",
      "Cloudflare Access's keys cannot be read right now, so no staff sign-in can be verified; retry after the period",
      { headers: { "Retry-After": String(this.retryAfterSeconds) } },
    );
  }
}

function fetchTeamKeys(url: string, now: number): Promise<HonoJsonWebKey[]> {
  lastAttempts.set(url, now);
  const fetching = (async () => {
    const response = await fetch(url, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
    if (!response.ok) throw new Error(`Cloudflare Access keys answered ${response.status}`);
    const keys = keysOf(await response.json());
    fetchedKeys.set(url, { keys, fetchedAt: now });
    return keys;
  })()
    .catch((error: unknown) => {
      console.log(JSON.stringify({ level: "warn", event: "access-keys-unavailable", url, error: describeError(error) }));
      throw error;
    })
    .finally(() => fetchingKeys.delete(url));
  fetchingKeys.set(url, fetching);
  return fetching;
}

/**
 * The team's keys for a token naming `kid`: those held while under an hour old and holding the kid; else read again
 * (at most once a minute, whatever the last read's outcome). When that read fails or must wait, the keys held (under an
 * hour old) still judge the token; without any, the token cannot be judged now.
 */
async function teamKeys(issuer: string, kid: string, now: number): Promise<HonoJsonWebKey[] | AccessKeysUnavailable> {
  const url = `${issuer}/cdn-cgi/access/certs`;
  const held = fetchedKeys.get(url);
  let usable = held && now - held.fetchedAt <= KEYS_MAX_AGE_MS ? held.keys : undefined;
  if (usable?.some((key) => key.kid === kid)) return usable;
  const lastAttempt = lastAttempts.get(url);
  const fetching =
    fetchingKeys.get(url) ??
    (lastAttempt === undefined || now - lastAttempt >= REFETCH_INTERVAL_MS ? fetchTeamKeys(url, now) : undefined);
  // A failed read was logged where it failed; the keys held, if any, judge the token.
  if (fetching) usable = (await fetching.catch(() => undefined)) ?? usable;
  if (usable) return usable;
  const nextAttempt = (lastAttempts.get(url) ?? now) + REFETCH_INTERVAL_MS;
  return new AccessKeysUnavailable(Math.max(1, Math.ceil((nextAttempt - now) / 1000)));
}

function settingKeys(jwks: string): HonoJsonWebKey[] {
  let keys = configuredKeys.get(jwks);
  if (!keys) {
    keys = keysOf(JSON.parse(jwks));
    configuredKeys.set(jwks, keys);
  }
  return keys;
}

/** A claim that must not lie in the future (nbf, iat), allowing for the leeway; absent is fine. */
function notAhead(claim: unknown, nowSeconds: number): boolean {
  return claim === undefined || (typeof claim === "number" && Number.isFinite(claim) && claim - LEEWAY_SECONDS <= nowSeconds);
}

/** Who a valid Access token names, and until when it is valid (seconds since the epoch, as the token's exp). */
export interface AccessIdentity {
  email: string;
  expiresAt: number;
}

/**
 * Tokens this isolate verified, by the settings they were verified for, each with who it names: a staff member's next
 * requests cost no signature check while the token stays valid. At most VERIFIED_CAPACITY, the oldest dropped first.
 */
const verified = new Map<string, { identity: AccessIdentity; settings: AccessSettings }>();
const VERIFIED_CAPACITY = 1_000;

/**
 * The person (their e-mail, in lower case) of a valid Access token for this deployment's application, or undefined
 * for any other: not a JWT, not RS256, no `kid`, an unknown key, a bad signature, another audience or issuer, expired
 * or not yet valid (beyond the leeway), or no e-mail (an Access service token names no person). Without ACCESS_AUD
 * nothing is valid. AccessKeysUnavailable for a token that would need the team's keys while none can be had.
 */
export async function accessIdentity(
  token: string,
  settings: AccessSettings,
  now: number,
): Promise<AccessIdentity | AccessKeysUnavailable | undefined> {
  if (!settings.ACCESS_AUD || !settings.ACCESS_TEAM_DOMAIN) return undefined;
  const issuer = issuerOf(settings.ACCESS_TEAM_DOMAIN);
  const known = verified.get(token);
  const sameSettings =
    known?.settings.ACCESS_AUD === settings.ACCESS_AUD &&
    known.settings.ACCESS_TEAM_DOMAIN === settings.ACCESS_TEAM_DOMAIN &&
    known.settings.ACCESS_JWKS === settings.ACCESS_JWKS;
  // Its signature, audience, issuer and nbf/iat held when it was verified for these settings; only time can end it.
  if (known && sameSettings && known.identity.expiresAt + LEEWAY_SECONDS > now / 1000) return known.identity;
  verified.delete(token);
  const identity = await verifiedIdentity(token, settings, issuer, now);
  if (identity && !(identity instanceof AccessKeysUnavailable)) {
    if (verified.size >= VERIFIED_CAPACITY) verified.delete(verified.keys().next().value!);
    verified.set(token, { identity, settings });
  }
  return identity;
}

async function verifiedIdentity(
  token: string,
  settings: AccessSettings,
  issuer: string,
  now: number,
): Promise<AccessIdentity | AccessKeysUnavailable | undefined> {
  let header: { alg?: unknown; kid?: unknown };
  try {
    header = decode(token).header;
  } catch {
    return undefined;
  }
  // What no key could verify (unsigned, another algorithm, no key id) is refused before any key is looked for.
  const { alg, kid } = header;
  if (alg !== "RS256" || typeof kid !== "string" || kid === "") return undefined;
  const keys = settings.ACCESS_JWKS ? settingKeys(settings.ACCESS_JWKS) : await teamKeys(issuer, kid, now);
  if (keys instanceof AccessKeysUnavailable) return keys;
  let payload: Record<string, unknown>;
  try {
    payload = await verifyWithJwks(token, {
      keys,
      allowedAlgorithms: ["RS256"],
      // The times are checked below, with the leeway hono's checks do not allow.
      verification: { iss: issuer, aud: settings.ACCESS_AUD, exp: false, nbf: false, iat: false },
    });
  } catch {
    return undefined;
  }
  const nowSeconds = now / 1000;
  const { exp, nbf, iat, email } = payload;
  if (typeof exp !== "number" || !Number.isFinite(exp) || exp + LEEWAY_SECONDS <= nowSeconds) return undefined;
  if (!notAhead(nbf, nowSeconds) || !notAhead(iat, nowSeconds)) return undefined;
  return typeof email === "string" && email.includes("@") ? { email: email.toLowerCase(), expiresAt: exp } : undefined;
}
