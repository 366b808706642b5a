// The operator's staff in tests: Cloudflare Access tokens minted with the tests' own key pair (vitest.config.ts), and
// staff members of each role, each with a client that sends their token as Access does.
import { env } from "cloudflare:workers";
import { sign } from "hono/jwt";
import { accessClaims } from "../scripts/access-claims.ts";
import type { StaffRole } from "../src/db/schema.ts";
import { TEST_ACCESS_AUD, TEST_ACCESS_TEAM_DOMAIN } from "./constants.ts";
import { type Client, client, json, operator } from "./helpers.ts";

/** The private key the tests' Worker trusts, as hono/jwt signs with it (a JWK with alg and kid: the header names both). */
const privateKey = JSON.parse(env.TEST_ACCESS_PRIVATE_JWK) as JsonWebKey & { alg: "RS256"; kid: string };

/** The tests' Access application, as the Worker's bindings name it (vitest.config.ts). */
const TEST_APPLICATION = { audience: TEST_ACCESS_AUD, issuer: TEST_ACCESS_TEAM_DOMAIN };

/** The claims of a token Access would issue for the tests' application, for `email`, valid for an hour; `claims` override. */
export function testAccessClaims(email: string, claims: Record<string, unknown> = {}): Record<string, unknown> {
  return accessClaims(TEST_APPLICATION, email, 3600, claims);
}

/** A token signed as Access signs (RS256, with the key id). */
export function accessToken(email: string, claims: Record<string, unknown> = {}): Promise<string> {
  return sign(testAccessClaims(email, claims), privateKey);
}

export interface StaffMember {
  email: string;
  role: StaffRole;
  token: string;
  /** Access's header, as it reaches the Worker behind Access. */
  headers: { "Cf-Access-Jwt-Assertion": string };
  /** The typed client with this member's token. */
  api: Client;
}

let counter = 0;

/** A new enabled staff member of this role (made with the ADMIN_TOKEN), with their token and client. */
export async function staffMember(role: StaffRole, name = `Staff ${role}`): Promise<StaffMember> {
  const email = `${role}.${crypto.randomUUID().slice(0, 8)}.${++counter}@operator.test`;
  await json(await operator.admin.staff[":email"].$put({ param: { email }, json: { name, role } }), 201);
  const token = await accessToken(email);
  const headers = { "Cf-Access-Jwt-Assertion": token };
  return { email, role, token, headers, api: client(headers) };
}
