// Idempotency-Key on every POST and PATCH: replays, reuse with another request, keys in flight, released keys, scopes,
// the purge, and answers sealed at rest.

import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { createApp } from "../src/app.ts";
import worker from "../src/index.ts";
import { sha256Hex } from "../src/lib/api-key.ts";
import { TEST_ADMIN_TOKEN } from "./constants.ts";
import { createdDocument, filesPath, pdf, uploadFile } from "./files.ts";
import {
  addressed,
  call,
  createCustomer,
  expectStatus,
  json,
  makeOrderable,
  ORIGIN,
  operator,
  problem,
  submittedVerification,
  type TestCustomer,
} from "./helpers.ts";
import { staffMember } from "./staff.ts";

const ORDER = { number_type: "mobile", country_code: "US", quantity: 5 };

beforeAll(async () => {
  await makeOrderable("US", "mobile");
});

afterEach(() => {
  vi.useRealTimers();
});

const ordersPath = (c: TestCustomer) => `/api/customers/${c.slug}/orders`;

function createOrder(customer: TestCustomer, key: string | undefined, body: unknown = ORDER): Promise<Response> {
  return customer.call(ordersPath(customer), {
    method: "POST",
    headers: { "Content-Type": "application/json", ...(key === undefined ? {} : { "Idempotency-Key": key }) },
    body: JSON.stringify(body),
  });
}

async function orderCount(customer: TestCustomer): Promise<number> {
  const list = await json(await customer.account.orders.$get({ param: { customer_slug: customer.slug }, query: {} }), 200);
  return list.meta.total;
}

async function record(scope: string, key: string) {
  return env.DB.prepare("SELECT * FROM idempotency_keys WHERE scope = ? AND key_hash = ?")
    .bind(scope, await sha256Hex(key))
    .first<{ status: number | null; response: string | null; created_at: number; fingerprint: string }>();
}

describe("Idempotency-Key", () => {
  it("replays the first answer to a retry: same status, body, Location and Content-Type, marked as replayed", async () => {
    const customer = await createCustomer();
    const first = await createOrder(customer, "order-1");
    const firstBody = await first.text();
    expect(first.status).toBe(201);
    expect(first.headers.get("Idempotent-Replayed")).toBeNull();

    const retry = await createOrder(customer, "order-1");
    expect(retry.status).toBe(201);
    expect(retry.headers.get("Idempotent-Replayed")).toBe("true");
    expect(await retry.text()).toBe(firstBody);
    expect(retry.headers.get("Location")).toBe(first.headers.get("Location"));
    expect(retry.headers.get("Content-Type")).toBe(first.headers.get("Content-Type"));
    expect(await orderCount(customer)).toBe(1);

    // Without a key, or with another one, the same body runs again.
    await expectStatus(await createOrder(customer, undefined), 201);
    await expectStatus(await createOrder(customer, "order-2"), 201);
    expect(await orderCount(customer)).toBe(3);
  });

  it("answers the same key with a different request 422 idempotency_key_reused, and runs nothing", async () => {
    const customer = await createCustomer();
    await expectStatus(await createOrder(customer, "k"), 201);
    await problem(await createOrder(customer, "k", { ...ORDER, quantity: 6 }), 422, "idempotency_key_reused");
    // The same bytes to another path are another request too.
    const other = await customer.call(`${ordersPath(customer)}/00000000-0000-4000-8000-000000000000`, {
      method: "PATCH",
      headers: { "Content-Type": "application/json", "Idempotency-Key": "k" },
      body: JSON.stringify(ORDER),
    });
    expect(other.status).not.toBe(201);
    // JSON bodies are compared byte for byte: a reformatted body is another request.
    const spaced = await customer.call(ordersPath(customer), {
      method: "POST",
      headers: { "Content-Type": "application/json", "Idempotency-Key": "k" },
      body: JSON.stringify(ORDER, null, 2),
    });
    await problem(spaced, 422, "idempotency_key_reused");
    expect(await orderCount(customer)).toBe(1);
  });

  it("refuses a key that is not 1-255 visible ASCII characters (400, location header)", async () => {
    const customer = await createCustomer();
    for (const key of ["a b", "x".repeat(256), "tab\there"]) {
      const refused = await problem(await createOrder(customer, key), 400, "validation_error");
      expect(refused.errors).toEqual([
        { location: "header", pointer: "Idempotency-Key", message: "must be 1-255 visible ASCII characters" },
      ]);
    }
    await expectStatus(await createOrder(customer, "x".repeat(255)), 201);
    await expectStatus(await createOrder(customer, "!~"), 201);
    expect(await orderCount(customer)).toBe(2);
  });

  it("runs concurrent retries of one order create exactly once; the others replay it or are told it is in flight", async () => {
    const customer = await createCustomer();
    const answers = await Promise.all(Array.from({ length: 8 }, () => createOrder(customer, "burst")));
    const created = new Set<string>();
    for (const answer of answers) {
      const body = await answer.text();
      if (answer.status === 201) created.add(JSON.parse(body).order_id);
      else {
        expect(answer.status, body).toBe(409);
        expect(JSON.parse(body).code).toBe("idempotency_key_in_use");
        expect(answer.headers.get("Retry-After")).toBe("1");
      }
    }
    expect(created.size).toBe(1);
    expect(await orderCount(customer)).toBe(1);
    // Once the first has finished, every retry replays it.
    const late = await createOrder(customer, "burst");
    expect(late.headers.get("Idempotent-Replayed")).toBe("true");
    expect(JSON.parse(await late.text()).order_id).toBe([...created][0]);
  });

  it("answers 409 with Retry-After: 1 while the first request still runs, 422 if the request differs", async () => {
    const customer = await createCustomer();
    // A finished request tells the fingerprint of its method, path and body; a claim in flight with that fingerprint
    // is what the middleware writes before the request runs.
    await expectStatus(await createOrder(customer, "finished"), 201);
    const { fingerprint } = (await record(customer.customerId, "finished"))!;
    await env.DB.prepare(
      "INSERT INTO idempotency_keys (scope, key_hash, fingerprint, claim, created_at, status, response) VALUES (?, ?, ?, ?, ?, NULL, NULL)",
    )
      .bind(customer.customerId, await sha256Hex("running"), fingerprint, "another-request", Date.now())
      .run();
    const busy = await createOrder(customer, "running");
    await problem(busy, 409, "idempotency_key_in_use");
    expect(busy.headers.get("Retry-After")).toBe("1");
    await problem(await createOrder(customer, "running", { ...ORDER, quantity: 9 }), 422, "idempotency_key_reused");

    // A claim over a minute old will never answer: still 409 (never run twice), but no Retry-After, and it says why.
    await env.DB.prepare("UPDATE idempotency_keys SET created_at = ? WHERE scope = ? AND key_hash = ?")
      .bind(Date.now() - 61_000, customer.customerId, await sha256Hex("running"))
      .run();
    const abandoned = await createOrder(customer, "running");
    expect(abandoned.headers.get("Retry-After")).toBeNull();
    expect((await problem(abandoned, 409, "idempotency_key_in_use")).detail).toContain("never finished");
    expect(await orderCount(customer)).toBe(1);
  });

  it("keeps keys per account, and the operator's apart", async () => {
    const a = await createCustomer();
    const b = await createCustomer();
    const fromA = JSON.parse(await (await createOrder(a, "shared")).text());
    const fromB = await createOrder(b, "shared");
    expect(fromB.status).toBe(201);
    expect(fromB.headers.get("Idempotent-Replayed")).toBeNull();
    expect(fromA.order_id).toEqual(expect.any(String));
    expect(JSON.parse(await fromB.text()).order_id).not.toBe(fromA.order_id);
    expect(await orderCount(a)).toBe(1);
    expect(await orderCount(b)).toBe(1);

    const slug = `idem-${crypto.randomUUID().slice(0, 8)}`;
    const asOperator = (key: string) =>
      call("/admin/customers", {
        method: "POST",
        headers: { Authorization: `Bearer ${TEST_ADMIN_TOKEN}`, "Content-Type": "application/json", "Idempotency-Key": key },
        body: JSON.stringify({ slug, name: "Idempotent Ltd" }),
      });
    const created = await asOperator("shared");
    expect(created.status).toBe(201);
    const again = await asOperator("shared");
    expect(again.status).toBe(201);
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect(await again.text()).toBe(await created.text());
  });

  it("replays a stored answer only to whom the operation allows now: a demoted admin's retry is 403, never the key", async () => {
    const customer = await createCustomer();
    // Another admin, so that this one is never the last and may be demoted.
    await staffMember("admin");
    const member = await staffMember("admin");
    const key = crypto.randomUUID();
    const createKey = () =>
      call(`/admin/customers/${customer.slug}/api-keys`, {
        method: "POST",
        headers: { ...member.headers, "Content-Type": "application/json", "Idempotency-Key": key },
        body: JSON.stringify({ name: "Shown once" }),
      });
    const setRole = (role: "viewer" | "admin") =>
      operator.admin.staff[":email"].$put({ param: { email: member.email }, json: { name: "Demoted", role } });
    const created = await createKey();
    expect(created.status).toBe(201);
    const { key: plaintext } = (await created.json()) as { key: string };
    await json(await setRole("viewer"), 200);
    // Every retry, whether this isolate still remembers the admin or has read the viewer since.
    for (let retry = 0; retry < 3; retry++) {
      const refused = await createKey();
      expect(refused.headers.get("Idempotent-Replayed")).toBeNull();
      const body = await problem(refused, 403, "forbidden");
      expect(JSON.stringify(body)).not.toContain(plaintext);
    }
    // The answer is kept, and replayed once the role allows the operation again.
    await json(await setRole("admin"), 200);
    const replayed = await createKey();
    expect(replayed.headers.get("Idempotent-Replayed")).toBe("true");
    expect(((await replayed.json()) as { key: string }).key).toBe(plaintext);
  });

  it("leaves a key untouched by a request its audience refuses: another account's path is a 404, and the key stays free", async () => {
    const [own, other] = [await createCustomer(), await createCustomer()];
    const refused = await own.call(ordersPath(other), {
      method: "POST",
      headers: { "Content-Type": "application/json", "Idempotency-Key": "not-my-account" },
      body: JSON.stringify(ORDER),
    });
    await problem(refused, 404, "not_found");
    expect(await record(own.customerId, "not-my-account")).toBeNull();
    const placed = await createOrder(own, "not-my-account");
    expect(placed.status).toBe(201);
    expect(placed.headers.get("Idempotent-Replayed")).toBeNull();
    await placed.text();
  });

  it("stores 4xx answers (the retry gets the same refusal), but never runs a refused request twice", async () => {
    const customer = await createCustomer();
    const notOrderable = { ...ORDER, country_code: "ZZ" };
    const first = await problem(await createOrder(customer, "refused", notOrderable), 400, "not_orderable");
    const retry = await createOrder(customer, "refused", notOrderable);
    expect(retry.headers.get("Idempotent-Replayed")).toBe("true");
    // The replay names the request that ran, in its body and its X-Request-Id alike.
    expect(retry.headers.get("X-Request-Id")).toBe(first.request_id);
    expect(await problem(retry, 400, "not_orderable")).toEqual(first);
    expect(await orderCount(customer)).toBe(0);
  });

  it("releases the key when the answer is a 5xx, so the retry runs for real", async () => {
    const { customer, numberId } = await submittedVerification();
    const form = () => {
      const body = new FormData();
      body.set("file", new File([pdf()], "id.pdf"));
      body.set("document_type", "identity");
      return body;
    };
    const init = () => ({
      method: "POST",
      headers: { Authorization: `Bearer ${customer.key}`, "Idempotency-Key": "upload-1" },
      body: form(),
    });
    // R2 fails once: the answer is a 500, and the key is given up.
    const failingBucket = new Proxy(env.DOCUMENTS, {
      get(target, property) {
        if (property === "put") return () => Promise.reject(new Error("simulated R2 outage"));
        const value = Reflect.get(target, property);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const ctx = createExecutionContext();
    const silenced = vi.spyOn(console, "log").mockImplementation(() => undefined);
    const failed = await createApp().fetch(
      addressed(`${ORIGIN}${filesPath(numberId)}`, init()),
      { ...env, DOCUMENTS: failingBucket },
      ctx,
    );
    await waitOnExecutionContext(ctx);
    silenced.mockRestore();
    await problem(failed, 500, "internal_error");
    expect(await record(customer.customerId, "upload-1")).toBeNull();

    const retried = await call(filesPath(numberId), init());
    expect(retried.headers.get("Idempotent-Replayed")).toBeNull();
    await createdDocument(retried);
  });

  it("stores one document and one object for a retried upload, even with a new multipart boundary", async () => {
    const { customer, numberId, kycId } = await submittedVerification();
    const bytes = pdf();
    const send = (boundary: string, filename = "id.pdf") => {
      const body =
        `--${boundary}\r\nContent-Disposition: form-data; name="document_type"\r\n\r\nidentity\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: application/pdf\r\n\r\n`;
      return customer.call(filesPath(numberId), {
        method: "POST",
        headers: { "Content-Type": `multipart/form-data; boundary=${boundary}`, "Idempotency-Key": "scan-1" },
        body: new Uint8Array([
          ...new TextEncoder().encode(body),
          ...bytes,
          ...new TextEncoder().encode(`\r\n--${boundary}--\r\n`),
        ]),
      });
    };
    const answers = await Promise.all([send("aaa"), send("bbb"), send("ccc")]);
    const statuses = answers.map((a) => a.status).sort();
    for (const answer of answers) await answer.text();
    expect(statuses.filter((s) => s === 201).length).toBeGreaterThanOrEqual(1);
    expect(statuses.every((s) => s === 201 || s === 409)).toBe(true);
    const replay = await send("ddd");
    expect(replay.headers.get("Idempotent-Replayed")).toBe("true");
    await createdDocument(replay);
    // Another file name is another request.
    await problem(await send("eee", "other.pdf"), 422, "idempotency_key_reused");

    const read = await json(await customer.api.v1.numbers[":number_id"].KYC.$get({ param: { number_id: numberId } }), 200);
    expect(read.documents).toHaveLength(1);
    const objects = await env.DOCUMENTS.list({ prefix: `kyc/${customer.customerId}/${kycId.replace(/^kyc_/, "")}/` });
    expect(objects.objects).toHaveLength(1);
  });

  it("runs a bodiless POST sent as multipart once: a route that reads no multipart body claims the key at once", async () => {
    const customer = await createCustomer();
    const user = await json(
      await operator.admin.customers[":slug"].users.$post({
        param: { slug: customer.slug },
        json: { email: `multi.${crypto.randomUUID().slice(0, 6)}@example.com`, name: "Multi", role: "member" },
      }),
      201,
    );
    const invite = () => {
      const form = new FormData();
      form.set("note", "anything");
      return call(`/admin/users/${user.user_id}/invitation`, {
        method: "POST",
        headers: { Authorization: `Bearer ${TEST_ADMIN_TOKEN}`, "Idempotency-Key": `multipart-${user.user_id}` },
        body: form,
      });
    };
    const answers = await Promise.all([invite(), invite(), invite()]);
    const bodies = await Promise.all(answers.map((answer) => answer.text()));
    const ran = answers.filter((answer) => answer.status === 201 && answer.headers.get("Idempotent-Replayed") === null);
    expect(ran).toHaveLength(1);
    expect(answers.every((answer) => answer.status === 201 || answer.status === 409)).toBe(true);
    const replay = await invite();
    expect(replay.headers.get("Idempotent-Replayed")).toBe("true");
    expect(await replay.text()).toBe(bodies[answers.indexOf(ran[0]!)]);
  });

  it("replays an upload that filled the verification, though a new one would now be refused", async () => {
    const { customer, numberId } = await submittedVerification();
    for (let i = 0; i < 19; i++) await createdDocument(await uploadFile(customer, `num_${numberId}`, pdf(), `doc-${i}.pdf`));
    const twentieth = () => {
      const form = new FormData();
      form.set("file", new File([pdf()], "last.pdf"));
      form.set("document_type", "identity");
      return customer.call(filesPath(numberId), { method: "POST", headers: { "Idempotency-Key": "twentieth" }, body: form });
    };
    const first = await createdDocument(await twentieth());
    const retry = await twentieth();
    expect(retry.headers.get("Idempotent-Replayed")).toBe("true");
    expect(await createdDocument(retry)).toEqual(first);
  });

  it("replays a 405 with its Allow header", async () => {
    const customer = await createCustomer();
    const patchCollection = () =>
      customer.call(ordersPath(customer), {
        method: "PATCH",
        headers: { "Content-Type": "application/json", "Idempotency-Key": "wrong-method" },
        body: "{}",
      });
    const first = await patchCollection();
    const allow = first.headers.get("Allow");
    await problem(first, 405, "method_not_allowed");
    expect(allow).toContain("POST");
    const retry = await patchCollection();
    expect(retry.headers.get("Idempotent-Replayed")).toBe("true");
    expect(retry.headers.get("Allow")).toBe(allow);
    await retry.text();
  });

  it("replays a PATCH too", async () => {
    const { customer, numberId } = await submittedVerification();
    const patch = () =>
      customer.call(`/v1/numbers/${numberId}/KYC/address`, {
        method: "PATCH",
        headers: { "Content-Type": "application/json", "Idempotency-Key": "amend" },
        body: JSON.stringify({ city: "Leeds" }),
      });
    const first = await patch();
    const body = await first.text();
    expect(first.status, body).toBe(200);
    const again = await patch();
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect(await again.text()).toBe(body);
  });

  it("ignores the header on GET, PUT and DELETE", async () => {
    const customer = await createCustomer();
    const list = await customer.call(ordersPath(customer), { headers: { "Idempotency-Key": "a b" } });
    expect(list.status).toBe(200);
    await list.text();
  });

  it("seals stored answers: an API key's plaintext is not readable in the table", async () => {
    const customer = await createCustomer();
    const created = await call(`/admin/customers/${customer.slug}/api-keys`, {
      method: "POST",
      headers: { Authorization: `Bearer ${TEST_ADMIN_TOKEN}`, "Content-Type": "application/json", "Idempotency-Key": "new-key" },
      body: JSON.stringify({ name: "ci" }),
    });
    const { key } = JSON.parse(await created.text()) as { key: string };
    const stored = await record("operator", "new-key");
    expect(stored?.status).toBe(201);
    expect(stored?.response).not.toContain(key);
    expect(atob(stored!.response!)).not.toContain(key);
    const replayed = await call(`/admin/customers/${customer.slug}/api-keys`, {
      method: "POST",
      headers: { Authorization: `Bearer ${TEST_ADMIN_TOKEN}`, "Content-Type": "application/json", "Idempotency-Key": "new-key" },
      body: JSON.stringify({ name: "ci" }),
    });
    expect(JSON.parse(await replayed.text()).key).toBe(key);
  });

  it("keeps keys 24 hours: the scheduled handler purges older ones, after which the key is free again", async () => {
    const customer = await createCustomer();
    await expectStatus(await createOrder(customer, "day-old"), 201);
    const stored = await record(customer.customerId, "day-old");
    expect(stored).not.toBeNull();

    const ctx = createExecutionContext();
    const logs = vi.spyOn(console, "log").mockImplementation(() => undefined);
    await worker.scheduled(
      createScheduledController({ scheduledTime: stored!.created_at + 24 * 3_600_000 - 1, cron: "*/15 * * * *" }),
      env,
      ctx,
    );
    await waitOnExecutionContext(ctx);
    expect(await record(customer.customerId, "day-old")).not.toBeNull();
    await worker.scheduled(
      createScheduledController({ scheduledTime: stored!.created_at + 24 * 3_600_000 + 1, cron: "*/15 * * * *" }),
      env,
      ctx,
    );
    await waitOnExecutionContext(ctx);
    logs.mockRestore();
    expect(await record(customer.customerId, "day-old")).toBeNull();
    const fresh = await createOrder(customer, "day-old", { ...ORDER, quantity: 7 });
    expect(fresh.status).toBe(201);
    await fresh.text();
  });
});
