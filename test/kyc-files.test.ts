// KYC files: content sniffing, extensions, the 10 MiB limit, the 300 DPI rule, fields, the 20-document limit,
// download byte for byte, delete, cross-account 404s, and R2/D1 consistency (including the orphan sweep).
import { env, exports } from "cloudflare:workers";
import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createDatabase, type Database } from "../src/db/client.ts";
import { eq } from "drizzle-orm";
import { kycVerifications, type KycRow } from "../src/db/schema.ts";
import worker from "../src/index.ts";
import { OBJECT_PREFIX, ORPHAN_AGE_MS, removeDocument, storeDocument, sweepOrphanObjects } from "../src/kyc/documents.ts";
import { contentDisposition } from "../src/lib/content-disposition.ts";
import { todayUtc } from "../src/lib/time.ts";
import { jpeg, pdf, png, ppm } from "./files.ts";
import { adminCall, allocateNumbers, call, createCustomer, INDIVIDUAL_ADDRESS, json, ORIGIN, problem, type TestCustomer } from "./helpers.ts";

const MIB10 = 10 * 1024 * 1024;

interface Setup {
  customer: TestCustomer;
  numberId: string;
  kycId: string;
}

async function verificationReady(): Promise<Setup> {
  const customer = await createCustomer();
  const [number] = await allocateNumbers(customer);
  const verification = await json(
    await customer.call("POST", `/v1/numbers/${number!.number_id}/KYC/address`, INDIVIDUAL_ADDRESS),
    201,
  );
  return { customer, numberId: number!.number_id, kycId: verification.id };
}

function upload(
  setup: Pick<Setup, "customer" | "numberId">,
  bytes: Uint8Array,
  filename: string,
  fields: Record<string, string> = { document_type: "identity" },
): Promise<Response> {
  const form = new FormData();
  form.set("file", new File([bytes], filename, { type: "application/octet-stream" }));
  for (const [key, value] of Object.entries(fields)) form.set(key, value);
  return call(`/v1/numbers/num_${setup.numberId}/KYC/files`, {
    method: "POST",
    headers: { Authorization: `Bearer ${setup.customer.key}` },
    body: form,
  });
}

const withKey = (customer: TestCustomer, init: RequestInit = {}): RequestInit => ({
  ...init,
  headers: { Authorization: `Bearer ${customer.key}`, ...(init.headers as Record<string, string> | undefined) },
});

async function objectKeysOf(kycId: string, customerId: string): Promise<string[]> {
  const listed = await env.DOCUMENTS.list({ prefix: `${OBJECT_PREFIX}${customerId}/${kycId.replace("kyc_", "")}/` });
  return listed.objects.map((o) => o.key);
}

describe("upload", () => {
  it("stores a PDF: 201 with the document, an absolute download_url, and a summary in the verification", async () => {
    const setup = await verificationReady();
    const bytes = pdf();
    const response = await upload(setup, bytes, "passport scan.pdf", {
      document_type: "identity",
      description: "Passport, photo page",
      expiration_date: "2031-05-17",
    });
    const doc = await json(response, 201);
    expect(doc).toEqual({
      id: expect.stringMatching(/^doc_[0-9a-f-]{36}$/),
      kyc_id: setup.kycId,
      document_type: "identity",
      filename: "passport scan.pdf",
      file_size: bytes.length,
      mime_type: "application/pdf",
      description: "Passport, photo page",
      expiration_date: "2031-05-17",
      status: "uploaded",
      uploaded_at: expect.stringMatching(/Z$/),
      download_url: `${ORIGIN}/v1/kyc/documents/${doc.id}/download`,
    });
    expect(response.headers.get("Location")).toBe(`/v1/kyc/documents/${doc.id}/download`);
    const verification = await json(await setup.customer.call("GET", `/v1/numbers/${setup.numberId}/KYC`), 200);
    expect(verification.documents).toEqual([
      { id: doc.id, document_type: "identity", filename: "passport scan.pdf", status: "uploaded", uploaded_at: doc.uploaded_at },
    ]);
    const other = await json(await upload(setup, pdf(), "b.pdf", { document_type: "other" }), 201);
    expect(other.description).toBeNull();
    expect(other.expiration_date).toBeNull();
  });

  it("makes download_url absolute for the origin the request came to", async () => {
    const setup = await verificationReady();
    const form = new FormData();
    form.set("file", new File([pdf()], "a.pdf"));
    form.set("document_type", "other");
    const elsewhere = await exports.default.fetch(
      new Request(`http://numbers.example.net:8443/v1/numbers/${setup.numberId}/KYC/files`, withKey(setup.customer, { method: "POST", body: form })),
    );
    const doc = await json(elsewhere, 201);
    expect(doc.download_url).toBe(`http://numbers.example.net:8443/v1/kyc/documents/${doc.id}/download`);
  });

  it("judges the type by the bytes: PDF, JPEG and PNG pass with an agreeing extension, in any case", async () => {
    const setup = await verificationReady();
    await json(await upload(setup, pdf(), "A.PDF"), 201);
    expect((await json(await upload(setup, jpeg({}), "photo.jpg"), 201)).mime_type).toBe("image/jpeg");
    expect((await json(await upload(setup, jpeg({}), "photo.JPEG"), 201)).mime_type).toBe("image/jpeg");
    expect((await json(await upload(setup, png(), "scan.png"), 201)).mime_type).toBe("image/png");
  });

  it("refuses wrong bytes under a right name, and right bytes under a wrong name (415)", async () => {
    const setup = await verificationReady();
    const text = new TextEncoder().encode("just some text, not a document");
    for (const name of ["fake.pdf", "fake.png", "fake.jpg"]) {
      await problem(await upload(setup, text, name), 415, "unsupported_media_type");
    }
    await problem(await upload(setup, png(), "scan.pdf"), 415, "unsupported_media_type");
    await problem(await upload(setup, pdf(), "doc.png"), 415, "unsupported_media_type");
    await problem(await upload(setup, jpeg({}), "photo.png"), 415, "unsupported_media_type");
    await problem(await upload(setup, pdf(), "noextension"), 415, "unsupported_media_type");
    await problem(await upload(setup, pdf(), "doc.pdf.exe"), 415, "unsupported_media_type");
    expect(await objectKeysOf(setup.kycId, setup.customer.customerId)).toEqual([]);
  });

  it("applies the 300 DPI rule to PNG pHYs", async () => {
    const setup = await verificationReady();
    await json(await upload(setup, png({ x: ppm(300), y: ppm(300), unit: 1 }), "a.png"), 201);
    expect(ppm(300)).toBe(11_811);
    await json(await upload(setup, png({ x: 11_811, y: 11_811, unit: 1 }), "b.png"), 201);
    await json(await upload(setup, png({ x: ppm(600), y: ppm(600), unit: 1 }), "c.png"), 201);
    await json(await upload(setup, png({ x: 2835, y: 2835, unit: 0 }), "aspect-only.png"), 201);
    await json(await upload(setup, png(), "no-phys.png"), 201);
    const low = await problem(await upload(setup, png({ x: ppm(72), y: ppm(72), unit: 1 }), "low.png"), 400, "resolution_too_low");
    expect(low.detail).toContain("72x72");
    await problem(await upload(setup, png({ x: ppm(300), y: ppm(72), unit: 1 }), "one-axis.png"), 400, "resolution_too_low");
    await problem(await upload(setup, png({ x: ppm(299), y: ppm(299), unit: 1 }), "just-under.png"), 400, "resolution_too_low");
  });

  it("applies the 300 DPI rule to JPEG JFIF and EXIF densities", async () => {
    const setup = await verificationReady();
    await json(await upload(setup, jpeg({ jfif: { units: 1, x: 300, y: 300 } }), "a.jpg"), 201);
    await json(await upload(setup, jpeg({ jfif: { units: 2, x: 118, y: 118 } }), "dpcm.jpg"), 201);
    await json(await upload(setup, jpeg({ jfif: { units: 0, x: 1, y: 1 } }), "aspect.jpg"), 201);
    await json(await upload(setup, jpeg({ exif: { x: 300, y: 300 } }), "exif.jpg"), 201);
    await json(await upload(setup, jpeg({ jfif: { units: 0, x: 1, y: 1 }, exif: { x: 72, y: 72, unit: 1 } }), "exif-no-unit.jpg"), 201);
    await problem(await upload(setup, jpeg({ jfif: { units: 1, x: 72, y: 72 } }), "low.jpg"), 400, "resolution_too_low");
    await problem(await upload(setup, jpeg({ jfif: { units: 2, x: 28, y: 28 } }), "low-dpcm.jpg"), 400, "resolution_too_low");
    await problem(await upload(setup, jpeg({ exif: { x: 72, y: 72, unit: 2 } }), "low-exif.jpg"), 400, "resolution_too_low");
    await problem(await upload(setup, jpeg({ jfif: { units: 1, x: 300, y: 300 }, exif: { x: 96, y: 96 } }), "mixed.jpg"), 400, "resolution_too_low");
    await problem(await upload(setup, jpeg({ exif: { x: 100, y: 100, unit: 3 } }), "exif-cm.jpg"), 400, "resolution_too_low");
    await json(await upload(setup, jpeg({ exif: { x: 118, y: 118, unit: 3 } }), "exif-cm-ok.jpg"), 201);
  });

  it("accepts exactly 10,485,760 bytes and refuses 10,485,761 with 413", async () => {
    const setup = await verificationReady();
    const exact = await json(await upload(setup, pdf(MIB10), "exact.pdf"), 201);
    expect(exact.file_size).toBe(10_485_760);
    await problem(await upload(setup, pdf(MIB10 + 1), "over.pdf"), 413, "payload_too_large");
    expect((await objectKeysOf(setup.kycId, setup.customer.customerId)).length).toBe(1);
  });

  it("stops reading a streamed body as soon as it passes the limit", async () => {
    const setup = await verificationReady();
    let pulled = 0;
    const chunk = new Uint8Array(1024 * 1024).fill(0x41);
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        if (pulled > 64) controller.close();
        else controller.enqueue(chunk);
      },
    });
    const response = await call(`/v1/numbers/${setup.numberId}/KYC/files`, {
      method: "POST",
      headers: { Authorization: `Bearer ${setup.customer.key}`, "Content-Type": "multipart/form-data; boundary=xyz" },
      body,
      // @ts-expect-error: workerd accepts duplex for streamed request bodies
      duplex: "half",
    });
    await problem(response, 413, "payload_too_large");
    expect(pulled).toBeLessThan(20);
  });

  it("refuses a declared Content-Length over the limit without reading", async () => {
    const setup = await verificationReady();
    const response = await call(`/v1/numbers/${setup.numberId}/KYC/files`, {
      method: "POST",
      headers: {
        Authorization: `Bearer ${setup.customer.key}`,
        "Content-Type": "multipart/form-data; boundary=xyz",
        "Content-Length": String(50 * 1024 * 1024),
      },
      body: new Uint8Array(16),
    });
    expect([413]).toContain(response.status);
    await response.text();
  });

  it("validates the fields, naming each bad one", async () => {
    const setup = await verificationReady();
    const yesterday = todayUtc(Date.now() - 86_400_000);
    const bad = await problem(
      await upload(setup, pdf(), "a.pdf", { document_type: "passport", description: "d".repeat(501), expiration_date: "2031-02-30", colour: "red" }),
      400,
      "validation_error",
    );
    expect(bad.errors?.map((e) => e.pointer).sort()).toEqual(["/colour", "/description", "/document_type", "/expiration_date"]);
    const past = await problem(await upload(setup, pdf(), "a.pdf", { document_type: "other", expiration_date: yesterday }), 400, "validation_error");
    expect(past.errors).toEqual([{ location: "body", pointer: "/expiration_date", message: "must not be in the past" }]);
    await json(await upload(setup, pdf(), "a.pdf", { document_type: "other", expiration_date: todayUtc(), description: "d".repeat(500) }), 201);
    const missing = await problem(await upload(setup, pdf(), "a.pdf", {}), 400, "validation_error");
    expect(missing.errors?.map((e) => e.pointer)).toEqual(["/document_type"]);

    const noFile = new FormData();
    noFile.set("document_type", "identity");
    const noFileResponse = await call(`/v1/numbers/${setup.numberId}/KYC/files`, withKey(setup.customer, { method: "POST", body: noFile }));
    expect((await problem(noFileResponse, 400, "validation_error")).errors?.[0]?.pointer).toBe("/file");

    const textFile = new FormData();
    textFile.set("file", "not a file");
    textFile.set("document_type", "identity");
    const textResponse = await call(`/v1/numbers/${setup.numberId}/KYC/files`, withKey(setup.customer, { method: "POST", body: textFile }));
    expect((await problem(textResponse, 400, "validation_error")).errors?.[0]).toMatchObject({ pointer: "/file", message: "must be a file" });
  });

  it("refuses unknown parts, a part named __proto__ included, and lists at most 20 errors", async () => {
    const setup = await verificationReady();
    const proto = new FormData();
    proto.set("file", new File([pdf()], "a.pdf"));
    proto.set("document_type", "identity");
    proto.set("__proto__", "x");
    const protoResponse = await call(`/v1/numbers/${setup.numberId}/KYC/files`, withKey(setup.customer, { method: "POST", body: proto }));
    expect((await problem(protoResponse, 400, "validation_error")).errors).toEqual([{ location: "body", pointer: "/__proto__", message: "is not allowed" }]);

    const many = new FormData();
    many.set("file", new File([pdf()], "a.pdf"));
    many.set("document_type", "identity");
    for (let i = 0; i < 5000; i++) many.append(`k${i}`, "v");
    const manyResponse = await call(`/v1/numbers/${setup.numberId}/KYC/files`, withKey(setup.customer, { method: "POST", body: many }));
    expect((await problem(manyResponse, 400, "validation_error")).errors).toHaveLength(20);
    expect(await objectKeysOf(setup.kycId, setup.customer.customerId)).toEqual([]);
  });

  it("needs multipart/form-data (415 otherwise)", async () => {
    const setup = await verificationReady();
    const response = await setup.customer.call("POST", `/v1/numbers/${setup.numberId}/KYC/files`, { document_type: "identity" });
    await problem(response, 415, "unsupported_media_type");
  });

  it("holds at most 20 documents; the refused 21st leaves no object in R2", async () => {
    const setup = await verificationReady();
    for (let i = 0; i < 20; i++) await json(await upload(setup, pdf(), `doc-${i}.pdf`), 201);
    const refused = await problem(await upload(setup, pdf(), "doc-21.pdf"), 409, "conflict");
    expect(refused.detail).toContain("20");
    expect((await objectKeysOf(setup.kycId, setup.customer.customerId)).length).toBe(20);
    const verification = await json(await setup.customer.call("GET", `/v1/numbers/${setup.numberId}/KYC`), 200);
    expect(verification.documents).toHaveLength(20);
  });

  it("is allowed while pending, under_review and rejected, and locked once approved", async () => {
    const setup = await verificationReady();
    await json(await upload(setup, pdf(), "pending.pdf"), 201);
    await json(await adminCall("POST", `/admin/kyc/${setup.kycId}/review`, { status: "under_review" }), 200);
    // A file added during the review is part of it.
    expect((await json(await upload(setup, pdf(), "review.pdf"), 201)).status).toBe("pending_review");
    await json(await adminCall("POST", `/admin/kyc/${setup.kycId}/review`, { status: "rejected", rejection_reason: "blurry" }), 200);
    await json(await upload(setup, pdf(), "rejected.pdf"), 201);

    const approvedSetup = await verificationReady();
    await json(await adminCall("POST", `/admin/kyc/${approvedSetup.kycId}/review`, { status: "under_review" }), 200);
    await json(await adminCall("POST", `/admin/kyc/${approvedSetup.kycId}/review`, { status: "approved" }), 200);
    await problem(await upload(approvedSetup, pdf(), "late.pdf"), 409, "verification_locked");
    expect(await objectKeysOf(approvedSetup.kycId, approvedSetup.customer.customerId)).toEqual([]);
  });
});

describe("download", () => {
  it("streams the exact bytes with attachment, nosniff, no-store, ETag and the sniffed type", async () => {
    const setup = await verificationReady();
    const bytes = png({ x: ppm(300), y: ppm(300), unit: 1 });
    const doc = await json(await upload(setup, bytes, "Ürkund scan (1).png"), 201);
    const response = await call(new URL(doc.download_url).pathname, withKey(setup.customer));
    expect(response.status).toBe(200);
    expect(response.headers.get("Content-Type")).toBe("image/png");
    expect(response.headers.get("Content-Disposition")).toBe(
      `attachment; filename="_rkund scan (1).png"; filename*=UTF-8''%C3%9Crkund%20scan%20%281%29.png`,
    );
    expect(response.headers.get("X-Content-Type-Options")).toBe("nosniff");
    expect(response.headers.get("Cache-Control")).toBe("private, no-store");
    const etag = response.headers.get("ETag");
    expect(etag).toMatch(/^"[^"]+"$/);
    expect(new Uint8Array(await response.arrayBuffer())).toEqual(bytes);

    const path = new URL(doc.download_url).pathname;
    for (const ifNoneMatch of [etag!, `W/${etag}`, `"other", ${etag}`, "*"]) {
      const again = await call(path, withKey(setup.customer, { headers: { "If-None-Match": ifNoneMatch } }));
      expect(again.status).toBe(304);
      expect(again.headers.get("ETag")).toBe(etag);
      expect(await again.text()).toBe("");
    }
    // A different or malformed validator never fails the request: the file comes back whole.
    for (const ifNoneMatch of ['"other"', '"unterminated', 'no quotes at all']) {
      const fresh = await call(path, withKey(setup.customer, { headers: { "If-None-Match": ifNoneMatch, "If-Modified-Since": "not a date" } }));
      expect(fresh.status).toBe(200);
      expect(new Uint8Array(await fresh.arrayBuffer())).toEqual(bytes);
    }
  });

  it("returns a 10 MiB file byte for byte", async () => {
    const setup = await verificationReady();
    const bytes = pdf(MIB10);
    const doc = await json(await upload(setup, bytes, "big.pdf"), 201);
    const response = await call(`/v1/kyc/documents/${doc.id}/download`, withKey(setup.customer));
    expect(response.headers.get("Content-Length")).toBe(String(MIB10));
    const got = new Uint8Array(await response.arrayBuffer());
    expect(got.length).toBe(bytes.length);
    expect(got.every((b, i) => b === bytes[i])).toBe(true);
  });

  it("answers another account's document, an unknown one and a malformed id with 404, 404 and 400", async () => {
    const setup = await verificationReady();
    const doc = await json(await upload(setup, pdf(), "a.pdf"), 201);
    const stranger = await createCustomer();
    await problem(await call(`/v1/kyc/documents/${doc.id}/download`, withKey(stranger)), 404, "not_found");
    await problem(await call(`/v1/kyc/documents/${doc.id}`, withKey(stranger, { method: "DELETE" })), 404, "not_found");
    await problem(await call(`/v1/kyc/documents/doc_${crypto.randomUUID()}/download`, withKey(setup.customer)), 404, "not_found");
    await problem(await call("/v1/kyc/documents/doc_42/download", withKey(setup.customer)), 400, "validation_error");
    await problem(await call(`/v1/kyc/documents/${doc.id}/download`), 401, "unauthorized");
    const still = await call(`/v1/kyc/documents/${doc.id}/download`, withKey(setup.customer));
    expect(still.status).toBe(200);
    await still.arrayBuffer();
  });
});

describe("Content-Disposition", () => {
  it("gives an ASCII fallback without quotes, backslashes or line breaks, and the exact name in filename*", () => {
    expect(contentDisposition('a "b"\\c\r\nd.pdf')).toBe(`attachment; filename="a _b__c__d.pdf"; filename*=UTF-8''a%20%22b%22%5Cc%0D%0Ad.pdf`);
    expect(contentDisposition("报告.pdf")).toBe(`attachment; filename="__.pdf"; filename*=UTF-8''%E6%8A%A5%E5%91%8A.pdf`);
    expect(contentDisposition("it's.pdf")).toBe(`attachment; filename="it's.pdf"; filename*=UTF-8''it%27s.pdf`);
  });
});

describe("delete", () => {
  it("removes the row and the object; a second delete is a 404", async () => {
    const setup = await verificationReady();
    const doc = await json(await upload(setup, pdf(), "a.pdf"), 201);
    const [key] = await objectKeysOf(setup.kycId, setup.customer.customerId);
    expect(await env.DOCUMENTS.head(key!)).not.toBeNull();

    const deleted = await json(await call(`/v1/kyc/documents/${doc.id}`, withKey(setup.customer, { method: "DELETE" })), 200);
    expect(deleted).toEqual({ message: `Document ${doc.id} deleted`, deleted_at: expect.stringMatching(/Z$/) });
    expect(await env.DOCUMENTS.head(key!)).toBeNull();
    const row = await env.DB.prepare("SELECT id FROM kyc_documents WHERE id = ?").bind(doc.id.replace("doc_", "")).first();
    expect(row).toBeNull();
    expect((await json(await setup.customer.call("GET", `/v1/numbers/${setup.numberId}/KYC`), 200)).documents).toEqual([]);

    await problem(await call(`/v1/kyc/documents/${doc.id}`, withKey(setup.customer, { method: "DELETE" })), 404, "not_found");
    await problem(await call(`/v1/kyc/documents/${doc.id}/download`, withKey(setup.customer)), 404, "not_found");
  });

  it("is allowed under review and refused once approved or rejected (409 verification_completed)", async () => {
    const setup = await verificationReady();
    const first = await json(await upload(setup, pdf(), "a.pdf"), 201);
    const second = await json(await upload(setup, pdf(), "b.pdf"), 201);
    await json(await adminCall("POST", `/admin/kyc/${setup.kycId}/review`, { status: "under_review" }), 200);
    await json(await call(`/v1/kyc/documents/${first.id}`, withKey(setup.customer, { method: "DELETE" })), 200);
    await json(await adminCall("POST", `/admin/kyc/${setup.kycId}/review`, { status: "approved" }), 200);
    await problem(await call(`/v1/kyc/documents/${second.id}`, withKey(setup.customer, { method: "DELETE" })), 409, "verification_completed");

    const rejected = await verificationReady();
    const doc = await json(await upload(rejected, pdf(), "a.pdf"), 201);
    await json(await adminCall("POST", `/admin/kyc/${rejected.kycId}/review`, { status: "under_review" }), 200);
    await json(await adminCall("POST", `/admin/kyc/${rejected.kycId}/review`, { status: "rejected", rejection_reason: "expired" }), 200);
    await problem(await call(`/v1/kyc/documents/${doc.id}`, withKey(rejected.customer, { method: "DELETE" })), 409, "verification_completed");
    expect(await objectKeysOf(rejected.kycId, rejected.customer.customerId)).toHaveLength(1);
  });
});

describe("R2 and D1 stay consistent", () => {
  async function verificationRow(kycId: string): Promise<KycRow> {
    const db = createDatabase(env.DB);
    const row = await db.select().from(kycVerifications).where(eq(kycVerifications.id, kycId.replace("kyc_", ""))).get();
    return row!;
  }

  /** A D1 binding whose document inserts fail, as a D1 outage during the row write would. */
  function failingDocumentInserts(): Database {
    const failing = new Proxy(env.DB, {
      get(target, property, receiver) {
        if (property === "prepare") {
          return (query: string) => {
            if (/insert into "kyc_documents"/i.test(query)) throw new Error("D1_ERROR: simulated outage");
            return target.prepare(query);
          };
        }
        const value = Reflect.get(target, property, receiver);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    return createDatabase(failing);
  }

  it("removes the object when the row write fails", async () => {
    const setup = await verificationReady();
    const verification = await verificationRow(setup.kycId);
    const file = { content: new Blob([pdf()]), filename: "a.pdf", mimeType: "application/pdf" as const, documentType: "identity" as const, description: null, expirationDate: null };
    await expect(storeDocument(failingDocumentInserts(), env.DOCUMENTS, verification, file, Date.now())).rejects.toThrow("simulated outage");
    expect(await objectKeysOf(setup.kycId, setup.customer.customerId)).toEqual([]);
    const stored = await storeDocument(createDatabase(env.DB), env.DOCUMENTS, verification, file, Date.now());
    if (!stored.ok) throw new Error(`refused: ${stored.reason}`);
    expect(stored.value.filename).toBe("a.pdf");
    expect(await objectKeysOf(setup.kycId, setup.customer.customerId)).toEqual([stored.value.objectKey]);
  });

  it("answers a delete whose object removal fails as deleted, and leaves the object to the sweep", async () => {
    const setup = await verificationReady();
    const doc = await json(await upload(setup, pdf(), "a.pdf"), 201);
    const [key] = await objectKeysOf(setup.kycId, setup.customer.customerId);
    const failingDeletes = new Proxy(env.DOCUMENTS, {
      get(target, property, receiver) {
        if (property === "delete") return () => Promise.reject(new Error("R2 unavailable"));
        const value = Reflect.get(target, property, receiver);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const outcome = await removeDocument(createDatabase(env.DB), failingDeletes, setup.customer.customerId, doc.id.replace("doc_", ""));
    expect(outcome).toMatchObject({ ok: true, value: { objectKey: key } });
    expect(await env.DOCUMENTS.head(key!)).not.toBeNull();
    expect(await sweepOrphanObjects(createDatabase(env.DB), env.DOCUMENTS, Date.now() + ORPHAN_AGE_MS)).toBeGreaterThanOrEqual(1);
    expect(await env.DOCUMENTS.head(key!)).toBeNull();
  });

  it("sweeps objects without a row once they are an hour old, from the scheduled handler, and keeps the rest", async () => {
    const setup = await verificationReady();
    const doc = await json(await upload(setup, pdf(), "kept.pdf"), 201);
    const orphanKey = `${OBJECT_PREFIX}${setup.customer.customerId}/${setup.kycId.replace("kyc_", "")}/${crypto.randomUUID()}`;
    await env.DOCUMENTS.put(orphanKey, pdf());
    const outside = `elsewhere/${crypto.randomUUID()}`;
    await env.DOCUMENTS.put(outside, "not a document");

    expect(await sweepOrphanObjects(createDatabase(env.DB), env.DOCUMENTS, Date.now())).toBe(0);
    expect(await env.DOCUMENTS.head(orphanKey)).not.toBeNull();

    const ctx = createExecutionContext();
    await worker.scheduled(createScheduledController({ scheduledTime: Date.now() + ORPHAN_AGE_MS + 1000, cron: "*/15 * * * *" }), env, ctx);
    await waitOnExecutionContext(ctx);
    expect(await env.DOCUMENTS.head(orphanKey)).toBeNull();
    expect(await env.DOCUMENTS.head(outside)).not.toBeNull();
    const download = await call(`/v1/kyc/documents/${doc.id}/download`, withKey(setup.customer));
    expect(download.status).toBe(200);
    await download.arrayBuffer();
  });
});
