// Sign-in against a hostile client: one answer for every refusal (a locked or inactive user is no password oracle),
// the same work and answer headers for known and unknown e-mails, and no session that outlives a reset.
import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createDatabase } from "../src/db/client.ts";
import worker from "../src/index.ts";
import { sha256Hex } from "../src/lib/api-key.ts";
import { hashPassword, scryptParameters } from "../src/lib/passwords.ts";
import { findInvitation, INVITATION_TTL_MS } from "../src/users/credentials.ts";
import {
  findSession,
  issueSignInChoice,
  MAX_SESSIONS_PER_USER,
  SESSION_IDLE_MS,
  SIGN_IN_CHOICE_TTL_MS,
  startSession,
} from "../src/users/sessions.ts";
import { findUser } from "../src/users/store.ts";
import { call, clientAddress, createCustomer, json, operator, withLogs } from "./helpers.ts";
import { invitedUser, PASSWORD, pageText, postForm } from "./portal.ts";

const db = createDatabase(env.DB);

/** The cookie `name` an answer sets, as a Cookie header. */
function cookieOf(response: Response, name: string): string {
  const set = response.headers.getSetCookie().find((cookie) => cookie.startsWith(`${name}=`));
  if (!set) expect.fail(`the answer sets no ${name} cookie`);
  return set.split(";")[0]!;
}

async function runScheduled(scheduledTime: number) {
  const ctx = createExecutionContext();
  const { lines } = await withLogs(async () => {
    await worker.scheduled(createScheduledController({ scheduledTime, cron: "*/15 * * * *" }), env, ctx);
    await waitOnExecutionContext(ctx);
  });
  return lines;
}

/** A user of the account `slug` with this e-mail and password, invited by the operator and through the link. */
async function memberWithPassword(slug: string, email: string, password: string) {
  const user = await json(
    await operator.admin.customers[":slug"].users.$post({ param: { slug }, json: { email, name: "Both", role: "member" } }),
    201,
  );
  const path = new URL(user.invitation_url).pathname;
  expect((await postForm(path, { password, password_confirmation: password })).status).toBe(303);
  return user;
}

/** The error a sign-in page shows, or undefined. */
const alertOf = (html: string) => /role="alert">([^<]+)</.exec(html)?.[1];

/** A sign-in attempt from its own client address (so no test spends another's failure budget). */
function attempt(email: string, password: string) {
  return postForm("/portal/sign-in", { email, password }, { "CF-Connecting-IP": clientAddress() });
}

/** A member of the account `slug` who set a password (a member: the operator may deactivate one, unlike a last owner). */
async function userWithPassword(slug: string) {
  const customer = { slug } as Parameters<typeof invitedUser>[0];
  const user = await invitedUser(customer, "member");
  expect((await postForm(user.path, { password: PASSWORD, password_confirmation: PASSWORD })).status).toBe(303);
  return user;
}

describe("one answer for every refused sign-in", () => {
  it("answers a locked user's right and wrong passwords alike, as for an unknown e-mail", async () => {
    const customer = await createCustomer("signin");
    const user = await userWithPassword(customer.slug);
    for (let i = 0; i < 10; i++) await (await attempt(user.email, "wrong password!")).text();
    const locked = await json(await operator.admin.users[":user_id"].$get({ param: { user_id: user.user_id } }), 200);
    expect(locked.status).toBe("locked");
    const { lines, result } = await withLogs(async () => {
      const right = await attempt(user.email, PASSWORD);
      const wrong = await attempt(user.email, "another wrong one");
      const unknown = await attempt("nobody@example.com", PASSWORD);
      return {
        statuses: [right.status, wrong.status, unknown.status],
        texts: [await right.text(), await wrong.text(), await unknown.text()],
      };
    });
    expect(result.statuses).toEqual([400, 400, 400]);
    expect(result.texts.map(alertOf)).toEqual(Array(3).fill(alertOf(result.texts[2]!)));
    expect(alertOf(result.texts[0]!)).toBeDefined();
    // Nor does the work: the right password is never tried on a locked user, so it does what a wrong one does.
    const work = lines
      .filter((line) => line.path === "/portal/sign-in")
      .map(({ d1_calls, d1_rows_read, d1_rows_written }) => ({ d1_calls, d1_rows_read, d1_rows_written }));
    expect(work).toHaveLength(3);
    expect(work[0]).toEqual(work[1]);
  });

  it("answers an inactive user's right and wrong passwords alike", async () => {
    const customer = await createCustomer("signin");
    const user = await userWithPassword(customer.slug);
    await json(
      await operator.admin.users[":user_id"].$patch({ param: { user_id: user.user_id }, json: { status: "inactive" } }),
      200,
    );
    const right = await attempt(user.email, PASSWORD);
    const wrong = await attempt(user.email, "another wrong one");
    expect([right.status, wrong.status]).toEqual([400, 400]);
    expect(alertOf(await right.text())).toBe(alertOf(await wrong.text()));
  });
});

describe("known and unknown e-mails", () => {
  it("cost the same D1 calls and answer the same headers, without a bookmark", async () => {
    const customer = await createCustomer("signin");
    const user = await userWithPassword(customer.slug);
    const { lines, result } = await withLogs(async () => {
      const known = await attempt(user.email, "wrong password!");
      const unknown = await attempt(`x${user.email}`, "wrong password!");
      await known.text();
      await unknown.text();
      return { known, unknown };
    });
    const requests = lines.filter((line) => line.path === "/portal/sign-in");
    expect(requests).toHaveLength(2);
    expect(requests[0]!.d1_calls).toBe(requests[1]!.d1_calls);
    const names = (response: Response) => [...response.headers.keys()].filter((name) => name !== "x-request-id").sort();
    expect(names(result.known)).toEqual(names(result.unknown));
    expect(result.known.headers.get("x-d1-bookmark")).toBeNull();
    // No page says where D1 stands, nor takes a client's word for it (a bookmark is the API's alone).
    const page = await call("/portal/sign-in", { headers: { "x-d1-bookmark": "not-a-bookmark" } });
    expect(page.status).toBe(200);
    await page.text();
    expect(page.headers.get("x-d1-bookmark")).toBeNull();
  });
});

describe("a reset ends every session", () => {
  it("including one being created at that moment: no session of a sign-in racing a reset outlives it", async () => {
    const customer = await createCustomer("signin");
    const user = await userWithPassword(customer.slug);
    let issued = 0;
    for (let round = 0; round < 4; round++) {
      const reset = await json(
        await operator.admin.users[":user_id"].invitation.$post({ param: { user_id: user.user_id } }),
        201,
      );
      const password = `${PASSWORD} ${round}`;
      const current = round === 0 ? PASSWORD : `${PASSWORD} ${round - 1}`;
      const signIns = Array.from({ length: 8 }, () => attempt(user.email, current));
      const resetDone = postForm(new URL(reset.invitation_url).pathname, { password, password_confirmation: password });
      const answers = await Promise.all(signIns);
      expect((await resetDone).status).toBe(303);
      const cookies = answers.filter((a) => a.status === 303).map((a) => a.headers.get("Set-Cookie")!.split(";")[0]!);
      for (const answer of answers) await answer.text();
      issued += cookies.length;
      for (const cookie of cookies) {
        const page = await call("/portal/orders", { headers: { Cookie: cookie }, redirect: "manual" });
        await page.text();
        expect(page.status, `round ${round}: a session issued with the old password outlived the reset`).toBe(303);
      }
    }
    // Sign-ins with the old password got sessions while the reset ran: the race was run, not avoided.
    expect(issued).toBeGreaterThan(0);
  });
});

describe("a person in several accounts", () => {
  it("signs in with e-mail and password, then chooses the account; the ticket works once", async () => {
    const first = await createCustomer("alpha");
    const second = await createCustomer("beta");
    const email = `both.${crypto.randomUUID().slice(0, 8)}@example.com`;
    await memberWithPassword(first.slug, email, PASSWORD);
    await memberWithPassword(second.slug, email, PASSWORD);
    const answer = await attempt(email, PASSWORD);
    expect(answer.status).toBe(303);
    expect(answer.headers.get("Location")).toBe("/portal/sign-in/account");
    const ticket = cookieOf(answer, "__Host-vn_sign_in");
    expect(answer.headers.get("Set-Cookie")).toMatch(
      /^__Host-vn_sign_in=[^;]+; Max-Age=300; Path=\/; HttpOnly; Secure; SameSite=Lax$/,
    );
    const page = await pageText(await call("/portal/sign-in/account", { headers: { Cookie: ticket } }), 200);
    expect(page).toContain(`(${first.slug})`);
    expect(page).toContain(`(${second.slug})`);
    const chosen = await postForm("/portal/sign-in/account", { account: second.slug, next: "" }, { Cookie: ticket });
    expect(chosen.status).toBe(303);
    const session = cookieOf(chosen, "__Host-vn_session");
    const orders = await pageText(await call("/portal/orders", { headers: { Cookie: session } }), 200);
    expect(orders).toContain(second.slug);
    // Used up: the same ticket opens nothing more.
    const again = await postForm("/portal/sign-in/account", { account: first.slug, next: "" }, { Cookie: ticket });
    expect(again.status).toBe(400);
    expect(await again.text()).toContain("That sign-in has expired");
  });

  it("opens only what the password matched, and never a locked membership", async () => {
    const first = await createCustomer("alpha");
    const second = await createCustomer("beta");
    const email = `split.${crypto.randomUUID().slice(0, 8)}@example.com`;
    await memberWithPassword(first.slug, email, PASSWORD);
    const other = await memberWithPassword(second.slug, email, `${PASSWORD} two`);
    // Each password opens its own account directly.
    const direct = await attempt(email, `${PASSWORD} two`);
    expect(direct.status).toBe(303);
    expect(direct.headers.get("Location")).toBe("/portal/orders");
    const orders = await pageText(
      await call("/portal/orders", { headers: { Cookie: cookieOf(direct, "__Host-vn_session") } }),
      200,
    );
    expect(orders).toContain(second.slug);
    // A deactivated membership is not offered even when its password is given.
    await json(
      await operator.admin.users[":user_id"].$patch({ param: { user_id: other.user_id }, json: { status: "inactive" } }),
      200,
    );
    expect((await attempt(email, `${PASSWORD} two`)).status).toBe(400);
  });

  it("refuses a chosen account whose user was locked or whose password changed since the choice was offered", async () => {
    const first = await createCustomer("alpha");
    const second = await createCustomer("beta");
    const email = `late.${crypto.randomUUID().slice(0, 8)}@example.com`;
    await memberWithPassword(first.slug, email, PASSWORD);
    const locked = await memberWithPassword(second.slug, email, PASSWORD);
    const ticket = cookieOf(await attempt(email, PASSWORD), "__Host-vn_sign_in");
    await json(
      await operator.admin.users[":user_id"].$patch({ param: { user_id: locked.user_id }, json: { status: "locked" } }),
      200,
    );
    // No longer offered, and refused if chosen all the same.
    const offered = await pageText(await call("/portal/sign-in/account", { headers: { Cookie: ticket } }), 200);
    expect(offered).toContain(`(${first.slug})`);
    expect(offered).not.toContain(`(${second.slug})`);
    const refused = await postForm("/portal/sign-in/account", { account: second.slug }, { Cookie: ticket });
    expect(refused.status).toBe(400);
    await refused.text();
  });
});

describe("a person's sessions", () => {
  it("are at most MAX_SESSIONS_PER_USER (10): the eleventh sign-in ends the oldest", async () => {
    const customer = await createCustomer("signin");
    const user = await userWithPassword(customer.slug);
    const cookies: string[] = [];
    expect(MAX_SESSIONS_PER_USER).toBe(10);
    for (let i = 0; i < 11; i++) cookies.push(cookieOf(await attempt(user.email, PASSWORD), "__Host-vn_session"));
    const statuses = [];
    for (const cookie of cookies) {
      const page = await call("/portal/orders", { headers: { Cookie: cookie }, redirect: "manual" });
      await page.text();
      statuses.push(page.status);
    }
    expect(statuses).toEqual([303, ...Array(10).fill(200)]);
  });

  it("start only while the checked password hash and the active status hold", async () => {
    const customer = await createCustomer("signin");
    const user = await userWithPassword(customer.slug);
    const row = (await findUser(db, user.user_id))!;
    const checked = { userId: row.id, passwordHash: row.passwordHash! };
    expect(
      await startSession(
        db,
        { ...checked, passwordHash: await hashPassword("a password set since", scryptParameters(env.PASSWORD_SCRYPT_LOG_N)) },
        Date.now(),
      ),
    ).toBe(undefined);
    await json(
      await operator.admin.users[":user_id"].$patch({ param: { user_id: user.user_id }, json: { status: "inactive" } }),
      200,
    );
    expect(await startSession(db, checked, Date.now())).toBeUndefined();
    await json(
      await operator.admin.users[":user_id"].$patch({ param: { user_id: user.user_id }, json: { status: "active" } }),
      200,
    );
    expect(await startSession(db, checked, Date.now())).toEqual(expect.any(String));
  });
});

describe("the scheduled purge", () => {
  it("deletes expired sessions, invitations and sign-in tickets, and keeps live ones", async () => {
    const customer = await createCustomer("purge");
    const user = await userWithPassword(customer.slug);
    const row = (await findUser(db, user.user_id))!;
    const checked = { userId: row.id, passwordHash: row.passwordHash! };
    const now = Date.now();
    const live = (await startSession(db, checked, now))!;
    const idle = (await startSession(db, checked, now - SESSION_IDLE_MS - 1))!;
    const pending = await invitedUser(customer);
    const ticket = await issueSignInChoice(db, [checked], now - SIGN_IN_CHOICE_TTL_MS - 1);
    const lines = await runScheduled(now + 1);
    const purge = lines.find((line) => line.job === "purge-expired-credentials");
    expect(purge).toMatchObject({ level: "info" });
    expect(await findSession(db, live, now + 1)).toBeDefined();
    const remaining = await env.DB.prepare("SELECT count(*) AS n FROM sessions WHERE id_hash = ?")
      .bind(await sha256Hex(idle))
      .first<{ n: number }>();
    expect(remaining?.n).toBe(0);
    const tickets = await env.DB.prepare("SELECT count(*) AS n FROM sign_in_choices WHERE ticket_hash = ?")
      .bind(await sha256Hex(ticket))
      .first<{ n: number }>();
    expect(tickets?.n).toBe(0);
    // The invitation lives 72 hours: purged only after them.
    const token = pending.path.split("/").pop()!;
    await runScheduled(now + 1);
    expect(await findInvitation(db, token, now)).toBeDefined();
    await runScheduled(Date.now() + INVITATION_TTL_MS + 1_000);
    const invitations = await env.DB.prepare("SELECT count(*) AS n FROM invitations WHERE token_hash = ?")
      .bind(await sha256Hex(token))
      .first<{ n: number }>();
    expect(invitations?.n).toBe(0);
  });
});
