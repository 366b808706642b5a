// A staff member's identity from Cloudflare Access: the JWT Access sets in front of /admin and /ops, verified here with
// hono/jwt's verifyWithJwks (never trusting the network): RS256 only, a `kid` required, the application's audience,
// the team's issuer, and exp/nbf/iat with 60 s of leeway. The person is the token's e-mail, in lower case.
import { decode, verifyWithJwks } from "hono/jwt";
import type { HonoJsonWebKey } from "hono/utils/jwt/jws";
import type { Bindings } from "../env.ts";

/** Where Access puts its token: this header (a bare JWT, no scheme), else this cookie; a present header alone decides. */
export const ACCESS_HEADER = "Cf-Access-Jwt-Assertion";
export const ACCESS_COOKIE = "CF_Authorization";

const LEEWAY_SECONDS = 60;
/** Keys fetched from the team are kept at most this long by an isolate. */
const KEYS_MAX_AGE_MS = 60 * 60_000;
/** A token naming a key the isolate does not have refetches the keys, at most this often. */
const REFETCH_INTERVAL_MS = 60_000;

type AccessSettings = Pick<Bindings, "ACCESS_TEAM_DOMAIN" | "ACCESS_AUD" | "ACCESS_JWKS">;

interface KeySet {
  keys: HonoJsonWebKey[];
  fetchedAt: number;
}

/** The team's keys by certs URL, per isolate (a fetch under way is shared); and ACCESS_JWKS parsed, by its text. */
const fetchedKeys = new Map<string, KeySet>();
const fetchingKeys = new Map<string, Promise<HonoJsonWebKey[]>>();
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

async function teamKeys(issuer: string, kid: string, now: number): Promise<HonoJsonWebKey[]> {
  const url = `${issuer}/cdn-cgi/access/certs`;
  const held = fetchedKeys.get(url);
  const stale = !held || now - held.fetchedAt > KEYS_MAX_AGE_MS;
  const unknownKid = held && !held.keys.some((key) => key.kid === kid) && now - held.fetchedAt > REFETCH_INTERVAL_MS;
  if (held && !stale && !unknownKid) return held.keys;
  let fetching = fetchingKeys.get(url);
  if (!fetching) {
    fetching = (async () => {
      const response = await fetch(url);
      if (!response.ok) throw new Error(`Cloudflare Access keys answered ${response.status}`);
      const keys = keysOf(await response.json());
      fetchedKeys.set(url, { keys, fetchedAt: now });
      return keys;
    })().finally(() => fetchingKeys.delete(url));
    fetchingKeys.set(url, fetching);
  }
  return fetching;
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
 * nothing is valid.
 */
export async function accessIdentity(
  token: string,
  settings: AccessSettings,
  now = Date.now(),
): Promise<AccessIdentity | undefined> {
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
  if (identity) {
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
): Promise<AccessIdentity | undefined> {
  let kid: unknown;
  try {
    kid = decode(token).header.kid;
  } catch {
    return undefined;
  }
  if (typeof kid !== "string" || kid === "") return undefined;
  const keys = settings.ACCESS_JWKS ? settingKeys(settings.ACCESS_JWKS) : await teamKeys(issuer, kid, now);
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
