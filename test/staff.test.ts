// The operator's staff: who they are by their Cloudflare Access token (verified by the Worker: RS256 with a key id, the
// application's audience, the team's issuer, the times with 60 s of leeway, the e-mail), what a bad token costs (one
// 401, no D1 read), who is refused (unknown or disabled: 403), which credential decides, cross-site changes, the
// staff's management, and the console's door (/ops/sign-in, its cookie, the sign-out).
import { env } from "cloudflare:workers";
import { sign } from "hono/jwt";
import { afterEach, describe, expect, it, vi } from "vitest";
import { toBase64Url } from "../src/lib/base64.ts";
import { TEST_ACCESS_TEAM_DOMAIN, TEST_ADMIN_TOKEN } from "./constants.ts";
import {
  allPages,
  awaitFreshRateWindow,
  call,
  callInIsolate,
  clientAddress,
  expectStatus,
  FRESH_RATE_WINDOW_TIMEOUT,
  json,
  type LogLine,
  ORIGIN,
  operator,
  problem,
  withLogs,
} from "./helpers.ts";
import { accessToken, staffMember, testAccessClaims } from "./staff.ts";

afterEach(() => {
  vi.unstubAllGlobals();
  vi.useRealTimers();
});

const trustedKey = JSON.parse(env.ACCESS_JWKS).keys[0] as JsonWebKey & { kid: string };

/** A request to the operator's API with these headers, from an address of its own (failures are counted per address). */
function admin(path: string, headers: Record<string, string>, init: RequestInit = {}): Promise<Response> {
  return call(path, { ...init, headers: { ...headers, "CF-Connecting-IP": clientAddress() } });
}

const accessHeader = (token: string) => ({ "Cf-Access-Jwt-Assertion": token });
const accessCookie = (token: string) => ({ Cookie: `CF_Authorization=${token}` });

const encoder = new TextEncoder();
const part = (value: unknown) => toBase64Url(encoder.encode(JSON.stringify(value)));

/** A token whose header and signature are written by hand: what a forger sends. */
async function handMadeToken(header: Record<string, unknown>, claims: Record<string, unknown>, signWith?: CryptoKey) {
  const unsigned = `${part(header)}.${part(claims)}`;
  if (!signWith) return `${unsigned}.`;
  const algorithm = signWith.algorithm.name === "HMAC" ? "HMAC" : "RSASSA-PKCS1-v1_5";
  const signature = new Uint8Array(await crypto.subtle.sign(algorithm, signWith, encoder.encode(unsigned)));
  return `${unsigned}.${toBase64Url(signature)}`;
}

async function otherRsaKey(): Promise<CryptoKeyPair> {
  return (await crypto.subtle.generateKey(
    { name: "RSASSA-PKCS1-v1_5", modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" },
    true,
    ["sign", "verify"],
  )) as CryptoKeyPair;
}

function lineOf(lines: LogLine[], response: Response): LogLine | undefined {
  return lines.find((line) => line.request_id === response.headers.get("X-Request-Id") && "status" in line);
}

describe("a staff member's Cloudflare Access identity", () => {
  it("is taken from the Cf-Access-Jwt-Assertion header, or else from the CF_Authorization cookie", async () => {
    const member = await staffMember("viewer");
    await expectStatus(await admin("/admin/customers", accessHeader(member.token)), 200);
    await expectStatus(await admin("/admin/customers", accessCookie(member.token)), 200);
  });

  it("refuses every token that is not Access's for this application with one 401, before any D1 read", async () => {
    const member = await staffMember("admin");
    // The clock stands still, so "beyond the leeway" is one second beyond it, however long a request takes.
    vi.useFakeTimers({ now: Date.now(), toFake: ["Date"] });
    const now = Math.floor(Date.now() / 1000);
    const forger = await otherRsaKey();
    const forgerJwk = {
      ...((await crypto.subtle.exportKey("jwk", forger.privateKey)) as JsonWebKey),
      alg: "RS256",
      kid: trustedKey.kid,
    };
    const hmacOfPublicKey = await crypto.subtle.importKey(
      "raw",
      encoder.encode(JSON.stringify(trustedKey)),
      { name: "HMAC", hash: "SHA-256" },
      false,
      ["sign"],
    );
    const claims = testAccessClaims(member.email);
    const bad: Record<string, string> = {
      "signed by another key under the trusted kid": await sign(claims, forgerJwk as JsonWebKey & { alg: "RS256" }),
      "expired beyond the leeway": await accessToken(member.email, { exp: now - 61 }),
      "not yet valid beyond the leeway": await accessToken(member.email, { nbf: now + 61 }),
      "issued in the future beyond the leeway": await accessToken(member.email, { iat: now + 61 }),
      "for another application": await accessToken(member.email, { aud: ["another-application"] }),
      "from another team": await accessToken(member.email, { iss: "https://other.cloudflareaccess.com" }),
      "without exp": await accessToken(member.email, { exp: undefined }),
      "alg none": await handMadeToken({ alg: "none", typ: "JWT", kid: trustedKey.kid }, claims),
      "HS256 keyed with the public key": await handMadeToken(
        { alg: "HS256", typ: "JWT", kid: trustedKey.kid },
        claims,
        hmacOfPublicKey,
      ),
      "without a kid": await handMadeToken({ alg: "RS256", typ: "JWT" }, claims, forger.privateKey),
      "with an unknown kid": await sign(claims, { ...forgerJwk, kid: crypto.randomUUID() } as JsonWebKey & { alg: "RS256" }),
      "without an e-mail (a service token)": await accessToken(member.email, { email: undefined }),
      "not a JWT": "not.a.jwt",
      empty: "",
    };
    for (const [what, token] of Object.entries(bad)) {
      for (const carried of [accessHeader(token), accessCookie(token)]) {
        const { result, lines } = await withLogs(() => admin("/admin/customers", carried));
        const body = await problem(result, 401, "unauthorized");
        expect(body.detail, what).toBe("A valid credential is required");
        expect(lineOf(lines, result)?.d1_calls, `${what}: no D1 read`).toBe(0);
      }
    }
  });

  it("allows 60 s of clock difference either way", async () => {
    const member = await staffMember("viewer");
    vi.useFakeTimers({ now: Date.now(), toFake: ["Date"] });
    const now = Math.floor(Date.now() / 1000);
    for (const claims of [{ exp: now - 59 }, { nbf: now + 60 }, { iat: now + 60 }]) {
      await expectStatus(await admin("/admin/customers", accessHeader(await accessToken(member.email, claims))), 200);
    }
  });

  it("refuses a verified e-mail that is not staff, or whose member is disabled, with 403 forbidden", async () => {
    await problem(await admin("/admin/customers", accessHeader(await accessToken("nobody@operator.test"))), 403, "forbidden");
    const member = await staffMember("admin");
    await json(
      await operator.admin.staff[":email"].$put({
        param: { email: member.email },
        json: { name: "Gone", role: "admin", status: "disabled" },
      }),
      200,
    );
    const refused = await problem(await admin("/admin/customers", member.headers), 403, "forbidden");
    expect(refused.detail).toContain(member.email);
  });

  it("refuses a member disabled or given another role since this isolate knew them, on the next request, changing nothing", async () => {
    const member = await staffMember("admin");
    await expectStatus(await admin("/admin/customers", member.headers), 200);
    const change = (role: "admin" | "viewer", status: "enabled" | "disabled") =>
      operator.admin.staff[":email"].$put({ param: { email: member.email }, json: { name: "Known", role, status } });
    await json(await change("admin", "disabled"), 200);
    const slug = `known-${crypto.randomUUID().slice(0, 8)}`;
    const create = () =>
      admin(
        "/admin/customers",
        { ...member.headers, "Content-Type": "application/json" },
        { method: "POST", body: JSON.stringify({ slug, name: "Never" }) },
      );
    await problem(await create(), 403, "forbidden");
    await expectStatus(await operator.admin.customers[":slug"].$get({ param: { slug } }), 404);
    await problem(await admin("/admin/customers", member.headers), 403, "forbidden");
    // Known again as an admin, then made a viewer: the admin's write is refused and undone, and the viewer is refused
    // it afresh by role.
    await json(await change("admin", "enabled"), 200);
    await expectStatus(await admin("/admin/customers", member.headers), 200);
    await json(await change("viewer", "enabled"), 200);
    const refused = await problem(await create(), 403, "forbidden");
    expect(refused.detail).toBe(`${member.email} is no longer an enabled member of the operator's staff with the role admin`);
    await expectStatus(await operator.admin.customers[":slug"].$get({ param: { slug } }), 404);
    expect((await problem(await create(), 403, "forbidden")).detail).toMatch(/yours is viewer/);
  });

  it("compares e-mails in lower case", async () => {
    const member = await staffMember("viewer");
    await expectStatus(await admin("/admin/customers", accessHeader(await accessToken(member.email.toUpperCase()))), 200);
  });

  it("lets a present Authorization header alone decide, and the Access header over the cookie", async () => {
    const member = await staffMember("admin");
    const valid = accessHeader(member.token);
    await problem(await admin("/admin/customers", { ...valid, Authorization: "Bearer not-the-token" }), 401, "unauthorized");
    // In this isolate, as workerd's own fetch drops an empty Authorization header.
    const emptyAuthorization = { headers: { ...valid, Authorization: "", "CF-Connecting-IP": clientAddress() } };
    await problem(await callInIsolate("/admin/customers", emptyAuthorization), 401, "unauthorized");
    await expectStatus(
      await admin("/admin/customers", { ...accessHeader("forged"), Authorization: `Bearer ${TEST_ADMIN_TOKEN}` }),
      200,
    );
    await problem(
      await admin("/admin/customers", { ...accessHeader("forged"), ...accessCookie(member.token) }),
      401,
      "unauthorized",
    );
  });

  it("accepts no token where ACCESS_AUD is not set: only the ADMIN_TOKEN", async () => {
    const member = await staffMember("admin");
    const init = { headers: { ...member.headers, "CF-Connecting-IP": clientAddress() } };
    await problem(await callInIsolate("/admin/customers", init, { bindings: { ACCESS_AUD: "" } }), 401, "unauthorized");
  });

  it("reads the team's keys from its certs, keeps them, and refetches them for an unknown kid at most once a minute", async () => {
    const member = await staffMember("viewer");
    const certs = vi.fn(async (input: RequestInfo | URL) => {
      expect(String(input)).toBe(`${TEST_ACCESS_TEAM_DOMAIN}/cdn-cgi/access/certs`);
      return Response.json({ keys: [trustedKey] });
    });
    vi.stubGlobal("fetch", certs);
    // A team of its own, so no other test's fetch is cached for it.
    const bindings = { ACCESS_JWKS: "", ACCESS_TEAM_DOMAIN: `${TEST_ACCESS_TEAM_DOMAIN}/` };
    const send = (token: string) =>
      callInIsolate(
        "/admin/customers",
        { headers: { ...accessHeader(token), "CF-Connecting-IP": clientAddress() } },
        { bindings },
      );
    await expectStatus(await send(member.token), 200);
    await expectStatus(await send(member.token), 200);
    expect(certs).toHaveBeenCalledTimes(1);
    const unknownKid = await sign(testAccessClaims(member.email), {
      ...(JSON.parse(env.TEST_ACCESS_PRIVATE_JWK) as JsonWebKey),
      alg: "RS256",
      kid: "rotated",
    } as JsonWebKey & { alg: "RS256" });
    await problem(await send(unknownKid), 401, "unauthorized");
    expect(certs).toHaveBeenCalledTimes(1);
    vi.useFakeTimers({ now: Date.now() + 61_000, toFake: ["Date"] });
    await problem(await send(unknownKid), 401, "unauthorized");
    expect(certs).toHaveBeenCalledTimes(2);
  });

  it("lets a promotion, a re-enabling and every change of role take effect on the next request, as a demotion does", async () => {
    // Another admin, so that this one is never the last and may be demoted.
    await staffMember("admin");
    const member = await staffMember("viewer");
    const change = (role: "viewer" | "compliance" | "admin", status: "enabled" | "disabled" = "enabled") =>
      operator.admin.staff[":email"].$put({ param: { email: member.email }, json: { name: "Changing", role, status } });
    const tag = crypto.randomUUID().slice(0, 8);
    const slug = (n: number) => `promoted-${tag}-${n}`;
    const create = (n: number) =>
      admin(
        "/admin/customers",
        { ...member.headers, "Content-Type": "application/json" },
        { method: "POST", body: JSON.stringify({ slug: slug(n), name: "Promoted" }) },
      );
    // Known to this isolate as a viewer, then made an admin: the next request is an admin's.
    await expectStatus(await admin("/admin/customers", member.headers), 200);
    await json(await change("admin"), 200);
    await expectStatus(await create(1), 201);
    // Made compliance: a read every role may make is answered, and an admin's change is refused by the role read now.
    await json(await change("compliance"), 200);
    await expectStatus(await admin("/admin/customers", member.headers), 200);
    expect((await problem(await create(2), 403, "forbidden")).detail).toBe("This needs the role admin; yours is compliance");
    // Disabled, then enabled again as an admin before their next request: that request is an admin's.
    await json(await change("compliance", "disabled"), 200);
    await json(await change("admin"), 200);
    await expectStatus(await create(3), 201);
    await expectStatus(await operator.admin.customers[":slug"].$get({ param: { slug: slug(2) } }), 404);
  });

  it("refuses a change signed in by Access from another site (403), before anything runs; a read and the token pass", async () => {
    const member = await staffMember("admin");
    const slug = `xsite-${crypto.randomUUID().slice(0, 8)}`;
    const body = JSON.stringify({ slug, name: "Cross site" });
    const post = (headers: Record<string, string>) =>
      admin("/admin/customers", { ...headers, "Content-Type": "application/json" }, { method: "POST", body });
    for (const carried of [accessHeader(member.token), accessCookie(member.token)]) {
      await problem(await post({ ...carried, Origin: "https://evil.example" }), 403, "forbidden");
      await problem(await post({ ...carried, "Sec-Fetch-Site": "cross-site" }), 403, "forbidden");
      await problem(await post({ ...carried, Origin: "null" }), 403, "forbidden");
      await expectStatus(await admin("/admin/customers", { ...carried, "Sec-Fetch-Site": "cross-site" }), 200);
    }
    await expectStatus(await operator.admin.customers[":slug"].$get({ param: { slug } }), 404);
    await expectStatus(await post({ ...accessHeader(member.token), Origin: ORIGIN }), 201);
    await expectStatus(
      await admin(
        "/admin/customers",
        { Authorization: `Bearer ${TEST_ADMIN_TOKEN}`, Origin: "https://evil.example", "Content-Type": "application/json" },
        { method: "POST", body: JSON.stringify({ slug: `${slug}-t`, name: "By the token" }) },
      ),
      201,
    );
  });

  it("keeps each staff member's idempotency keys their own", async () => {
    const [first, second] = [await staffMember("admin"), await staffMember("admin")];
    const key = crypto.randomUUID();
    const create = (member: typeof first, slug: string) =>
      admin(
        "/admin/customers",
        { ...member.headers, "Idempotency-Key": key, "Content-Type": "application/json" },
        { method: "POST", body: JSON.stringify({ slug, name: slug }) },
      );
    const slug = (n: number) => `idem-${key.slice(0, 8)}-${n}`;
    await expectStatus(await create(first, slug(1)), 201);
    await expectStatus(await create(second, slug(2)), 201);
    const replayed = await create(first, slug(1));
    await expectStatus(replayed, 201);
    expect(replayed.headers.get("Idempotent-Replayed")).toBe("true");
    await problem(await create(first, slug(3)), 422, "idempotency_key_reused");
  });
});

describe("while Cloudflare Access's keys cannot be read", () => {
  type Certs = "unreachable" | "failing" | "not a JWKS" | "up";
  /**
   * A team of its own (nothing another test fetched is held for it), reached through a stub of the outbound fetch that
   * answers as `state.certs` says, counting the requests.
   */
  function ownTeam() {
    const domain = `https://team-${crypto.randomUUID().slice(0, 8)}.cloudflareaccess.test`;
    const state: { certs: Certs } = { certs: "unreachable" };
    const fetch = vi.fn(async (input: RequestInfo | URL) => {
      expect(String(input)).toBe(`${domain}/cdn-cgi/access/certs`);
      if (state.certs === "unreachable") throw new TypeError("Network connection lost.");
      if (state.certs === "failing") return new Response("upstream error", { status: 502 });
      if (state.certs === "not a JWKS") return Response.json({ keys: "none" });
      return Response.json({ keys: [trustedKey] });
    });
    vi.stubGlobal("fetch", fetch);
    const token = (email: string, claims: Record<string, unknown> = {}) => accessToken(email, { iss: domain, ...claims });
    const send = (token: string, address = clientAddress()) =>
      callInIsolate(
        "/admin/customers",
        { headers: { ...accessHeader(token), "CF-Connecting-IP": address } },
        { bindings: { ACCESS_JWKS: "", ACCESS_TEAM_DOMAIN: domain } },
      );
    return { domain, state, fetch, token, send };
  }

  /** A token for `email` signed with the trusted key under a key id the team's keys do not list. */
  function unknownKidToken(email: string, claims: Record<string, unknown>): Promise<string> {
    const jwk = { ...(JSON.parse(env.TEST_ACCESS_PRIVATE_JWK) as JsonWebKey), alg: "RS256", kid: "rotated" };
    return sign(testAccessClaims(email, claims), jwk as JsonWebKey & { alg: "RS256" });
  }

  /** The clock the Worker reads (Date), stopped, and set to `seconds` after it was stopped: no test waits. */
  function stoppedClock() {
    const start = Date.now();
    vi.useFakeTimers({ now: start, toFake: ["Date"] });
    return (seconds: number) => vi.setSystemTime(start + seconds * 1000);
  }

  it("answers 503 with Retry-After, never a 500, while no key is held, and asks Access at most once a minute", async () => {
    const member = await staffMember("viewer");
    const team = ownTeam();
    const at = stoppedClock();
    const first = await team.send(await team.token(member.email));
    expect(first.headers.get("Retry-After")).toBe("60");
    const body = await problem(first, 503, "service_unavailable");
    expect(body.detail).toBe(
      "Cloudflare Access's keys cannot be read right now, so no staff sign-in can be verified; retry after the period",
    );
    expect(team.fetch).toHaveBeenCalledTimes(1);
    // Within the minute nothing is asked again, whatever the token names.
    at(30);
    const again = await team.send(await team.token(member.email));
    expect(again.headers.get("Retry-After")).toBe("30");
    await problem(again, 503, "service_unavailable");
    await problem(await team.send(await unknownKidToken(member.email, { iss: team.domain })), 503, "service_unavailable");
    // What no key could verify is a 401 without asking: unsigned, or without a key id.
    const claims = testAccessClaims(member.email, { iss: team.domain });
    await problem(await team.send(await handMadeToken({ alg: "none", typ: "JWT", kid: "k" }, claims)), 401, "unauthorized");
    await problem(await team.send(await handMadeToken({ alg: "RS256", typ: "JWT" }, claims)), 401, "unauthorized");
    expect(team.fetch).toHaveBeenCalledTimes(1);
    // Each minute one more attempt, whatever its failure: an error status, then a body that is no key set.
    for (const [attempt, certs] of [
      [2, "failing"],
      [3, "not a JWKS"],
    ] as const) {
      team.state.certs = certs;
      at(60 * (attempt - 1));
      await problem(await team.send(await team.token(member.email)), 503, "service_unavailable");
      expect(team.fetch).toHaveBeenCalledTimes(attempt);
      at(60 * (attempt - 1) + 59);
      await problem(await team.send(await team.token(member.email)), 503, "service_unavailable");
      expect(team.fetch).toHaveBeenCalledTimes(attempt);
    }
    // Access answers again: the next attempt, a minute after the last, reads the keys.
    team.state.certs = "up";
    at(180);
    await expectStatus(await team.send(await team.token(member.email)), 200);
    expect(team.fetch).toHaveBeenCalledTimes(4);
  });

  it("judges tokens with the keys it holds (401 for a key they lack) while a refetch fails, until they are an hour old", async () => {
    const member = await staffMember("viewer");
    const team = ownTeam();
    team.state.certs = "up";
    const at = stoppedClock();
    await expectStatus(await team.send(await team.token(member.email)), 200);
    team.state.certs = "unreachable";
    at(61);
    await problem(await team.send(await unknownKidToken(member.email, { iss: team.domain })), 401, "unauthorized");
    expect(team.fetch).toHaveBeenCalledTimes(2);
    await problem(await team.send(await unknownKidToken(member.email, { iss: team.domain })), 401, "unauthorized");
    await expectStatus(await team.send(await team.token(member.email)), 200);
    expect(team.fetch).toHaveBeenCalledTimes(2);
    // Keys are kept an hour: past it, and with Access still unreachable, nothing can be verified.
    at(3601);
    const stale = await team.send(await team.token(member.email));
    expect(stale.headers.get("Retry-After")).toBe("60");
    await problem(stale, 503, "service_unavailable");
    expect(team.fetch).toHaveBeenCalledTimes(3);
  });

  it("counts each request it cannot judge as a failed authentication: past 30 a minute, 429", {
    timeout: FRESH_RATE_WINDOW_TIMEOUT,
  }, async () => {
    const member = await staffMember("viewer");
    const team = ownTeam();
    const address = clientAddress();
    await awaitFreshRateWindow(5_000);
    for (let i = 0; i < 30; i++)
      await problem(await team.send(await team.token(member.email), address), 503, "service_unavailable");
    const limited = await team.send(await team.token(member.email), address);
    expect(Number(limited.headers.get("Retry-After"))).toBeGreaterThanOrEqual(1);
    await problem(limited, 429, "rate_limited");
    expect(team.fetch).toHaveBeenCalledTimes(1);
  });
});

describe("the staff", () => {
  it("are named by the admin: created (201, Location), read, changed (200), listed by e-mail", async () => {
    const member = await staffMember("admin");
    const email = `New.Person.${crypto.randomUUID().slice(0, 8)}@Operator.test`;
    const put = (json: {
      name: string;
      role: "viewer" | "fulfilment" | "compliance" | "admin";
      status?: "enabled" | "disabled";
    }) => member.api.admin.staff[":email"].$put({ param: { email }, json });
    const created = await put({ name: "New Person", role: "viewer" });
    expect(created.status).toBe(201);
    expect(created.headers.get("Location")).toBe(`/admin/staff/${encodeURIComponent(email.toLowerCase())}`);
    expect(await created.json()).toMatchObject({ email: email.toLowerCase(), role: "viewer", status: "enabled" });
    expect(await json(await put({ name: "New Person", role: "fulfilment" }), 200)).toMatchObject({ role: "fulfilment" });
    expect(await json(await member.api.admin.staff[":email"].$get({ param: { email } }), 200)).toMatchObject({
      name: "New Person",
      role: "fulfilment",
    });
    // Every page: the files of one workerd share the staff.
    const { items } = await allPages(async (page) =>
      json(await member.api.admin.staff.$get({ query: { page: String(page), limit: "100" } }), 200),
    );
    const emails = items.map((s) => s.email);
    expect(emails).toEqual(emails.toSorted());
    expect(emails).toContain(email.toLowerCase());
    await expectStatus(await member.api.admin.staff[":email"].$get({ param: { email: "nobody@operator.test" } }), 404);
    await problem(await member.api.admin.staff[":email"].$get({ param: { email: "not-an-email" } }), 400, "validation_error");
  });

  it("keep an enabled admin: the last one can be neither demoted nor disabled (409), even by two at once", async () => {
    const [kept, other] = [await staffMember("admin"), await staffMember("admin")];
    // Every other enabled admin of this workerd's storage steps down, by the token.
    const { items: all } = await allPages(async (page) =>
      json(await operator.admin.staff.$get({ query: { page: String(page), limit: "100" } }), 200),
    );
    for (const s of all.filter(
      (s) => s.role === "admin" && s.status === "enabled" && ![kept.email, other.email].includes(s.email),
    )) {
      await json(
        await operator.admin.staff[":email"].$put({ param: { email: s.email }, json: { name: s.name, role: "viewer" } }),
        200,
      );
    }
    // The last two demote each other at once: one of them stays.
    const demote = (email: string) =>
      operator.admin.staff[":email"].$put({ param: { email }, json: { name: "Demoted", role: "viewer" } });
    const answers = await Promise.all([demote(kept.email), demote(other.email)]);
    expect(answers.map((a) => a.status).toSorted()).toEqual([200, 409]);
    const remaining = (answers[0]!.status as number) === 409 ? kept : other;
    await problem(await demote(remaining.email), 409, "conflict");
    const disable = await operator.admin.staff[":email"].$put({
      param: { email: remaining.email },
      json: { name: "Still here", role: "admin", status: "disabled" },
    });
    const refused = await problem(disable, 409, "conflict");
    expect(refused.detail).toMatch(/last enabled admin/);
    await expectStatus(await admin("/admin/customers", remaining.headers), 200);
  });
});

describe("the console's door", () => {
  it("signs a browser in with a link (the Access cookie, HttpOnly, Secure, Lax), shows who it is, and signs out", async () => {
    const member = await staffMember("compliance", "Ada Console");
    const signIn = await call(`/ops/sign-in?token=${member.token}`, { redirect: "manual" });
    expect(signIn.status).toBe(303);
    expect(signIn.headers.get("Location")).toBe("/ops");
    const cookie = signIn.headers.get("Set-Cookie") ?? "";
    expect(cookie).toMatch(/^CF_Authorization=/);
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/Secure/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
    const home = await call("/ops", { headers: accessCookie(member.token) });
    expect(home.status).toBe(200);
    const page = await home.text();
    expect(page).toContain("Ada Console");
    expect(page).toContain("compliance");
    const csrf = page.match(/name="csrf_token" value="([^"]+)"/)?.[1];
    expect(csrf).toBeDefined();
    const form = (token: string) => ({
      method: "POST",
      redirect: "manual" as const,
      headers: { ...accessCookie(member.token), Origin: ORIGIN, "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ csrf_token: token }),
    });
    expect((await call("/ops/sign-out", form("forged"))).status).toBe(403);
    const signOut = await call("/ops/sign-out", form(csrf ?? ""));
    expect(signOut.status).toBe(303);
    expect(signOut.headers.get("Location")).toBe("/ops/signed-out");
    expect(signOut.headers.get("Set-Cookie")).toMatch(/^CF_Authorization=;.*Max-Age=0/);
    expect((await call("/ops/signed-out")).status).toBe(200);
  });

  it("answers a bad link with a 401 page and no cookie, an unknown person with a 403 page, no credential with 401", async () => {
    const refused = await call(`/ops/sign-in?token=${await accessToken("x@operator.test", { exp: 1 })}`, {
      redirect: "manual",
      headers: { "CF-Connecting-IP": clientAddress() },
    });
    expect(refused.status).toBe(401);
    expect(refused.headers.get("Set-Cookie")).toBeNull();
    expect(refused.headers.get("Content-Type")).toMatch(/^text\/html/);
    const stranger = await call("/ops", { headers: accessCookie(await accessToken("stranger@operator.test")) });
    expect(stranger.status).toBe(403);
    expect(await stranger.text()).toContain("stranger@operator.test is not an enabled member");
    const anonymous = await call("/ops", { headers: { "CF-Connecting-IP": clientAddress() } });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("Content-Type")).toMatch(/^text\/html/);
  });

  it("shows a member their role as it is now, and refuses one disabled since with the console's own page", async () => {
    const member = await staffMember("viewer", "Vic Changing");
    const home = () => call("/ops", { headers: member.headers });
    expect(await (await home()).text()).toContain("<dd>Viewer</dd>");
    await json(
      await operator.admin.staff[":email"].$put({
        param: { email: member.email },
        json: { name: "Vic Changing", role: "admin" },
      }),
      200,
    );
    const promoted = await home();
    expect(promoted.status).toBe(200);
    expect(await promoted.text()).toContain("<dd>Admin</dd>");
    await json(
      await operator.admin.staff[":email"].$put({
        param: { email: member.email },
        json: { name: "Vic Changing", role: "admin", status: "disabled" },
      }),
      200,
    );
    const refused = await home();
    expect(refused.status).toBe(403);
    expect(refused.headers.get("Content-Type")).toMatch(/^text\/html/);
    expect(await refused.text()).toContain(`${member.email} is not an enabled member of the operator&#39;s staff`);
  });

  it("exists only while ACCESS_JWKS is set: in production a token never travels in a URL", async () => {
    const member = await staffMember("viewer");
    const answer = await callInIsolate(
      `/ops/sign-in?token=${member.token}`,
      { redirect: "manual" },
      { bindings: { ACCESS_JWKS: "" } },
    );
    expect(answer.status).toBe(404);
    expect(answer.headers.get("Set-Cookie")).toBeNull();
  });
});
