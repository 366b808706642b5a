// KYC files: content sniffing, extensions, the 10 MiB limit, the 300 DPI rule, fields, the 20-document limit,
// download byte for byte, delete, cross-account 404s, and R2/D1 consistency (including the orphan sweep).
import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import type { InferRequestType } from "hono/client";
import { beforeAll, describe, expect, it } from "vitest";
import { createDatabase, type Database } from "../src/db/client.ts";
import { Outbox } from "../src/db/outbox.ts";
import { type KycRow, kycVerifications } from "../src/db/schema.ts";
import worker from "../src/index.ts";
import {
  type CheckedFile,
  OBJECT_PREFIX,
  ORPHAN_AGE_MS,
  removeDocument,
  storeDocument,
  sweepOrphanObjects,
} from "../src/kyc/documents.ts";
import { contentDisposition } from "../src/lib/content-disposition.ts";
import { todayUtc } from "../src/lib/time.ts";
import { createdDocument, filesPath, hostileFiles, jpeg, pdf, pdfOf, png, ppm, uploadFile } from "./files.ts";
import {
  addressed,
  anonymous,
  callInIsolate,
  createCustomer,
  json,
  makeOrderable,
  ORIGIN,
  operator,
  problem,
  submittedVerification,
  type TestCustomer,
  withLogs,
} from "./helpers.ts";

const MIB10 = 10 * 1024 * 1024;

type Review = InferRequestType<(typeof operator)["admin"]["kyc"][":kyc_id"]["review"]["$post"]>["json"];

interface Setup {
  customer: TestCustomer;
  numberId: string;
  kycId: string;
}

// US mobile in the catalog, once for the file: no test here changes that pair.
beforeAll(() => makeOrderable("US", "mobile"));

function verificationReady(): Promise<Setup> {
  return submittedVerification("c", { orderable: "made-by-file" });
}

function upload(
  setup: Pick<Setup, "customer" | "numberId">,
  bytes: Uint8Array,
  filename: string,
  fields: Record<string, string> = { document_type: "identity" },
): Promise<Response> {
  return uploadFile(setup.customer, `num_${setup.numberId}`, bytes, filename, fields);
}

/** A multipart body sent as it is (no file, a text "file", odd parts), with the customer's key. */
function uploadForm(setup: Setup, form: FormData): Promise<Response> {
  return setup.customer.call(filesPath(setup.numberId), { method: "POST", body: form });
}

function getVerification(setup: Setup) {
  return setup.customer.api.v1.numbers[":number_id"].KYC.$get({ param: { number_id: setup.numberId } });
}

/** The document's download route as `customer` reaches it. */
function download(customer: TestCustomer, documentId: string, headers: Record<string, string> = {}) {
  return customer.api.v1.kyc.documents[":document_id"].download.$get({ param: { document_id: documentId } }, { headers });
}

function deleteDocument(customer: TestCustomer, documentId: string) {
  return customer.api.v1.kyc.documents[":document_id"].$delete({ param: { document_id: documentId } });
}

function review(kycId: string, body: Review) {
  return operator.admin.kyc[":kyc_id"].review.$post({ param: { kyc_id: kycId }, json: body });
}

async function objectKeysOf(kycId: string, customerId: string): Promise<string[]> {
  const listed = await env.DOCUMENTS.list({ prefix: `${OBJECT_PREFIX}${customerId}/${kycId.replace("kyc_", "")}/` });
  return listed.objects.map((o) => o.key);
}

/** The one object stored for a verification. */
async function onlyObjectKeyOf(setup: Setup): Promise<string> {
  const keys = await objectKeysOf(setup.kycId, setup.customer.customerId);
  expect(keys).toHaveLength(1);
  return keys[0] ?? "";
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
    const location = response.headers.get("Location");
    const doc = await createdDocument(response);
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
      rejection_reasons: [],
      uploaded_at: expect.stringMatching(/Z$/),
      download_url: `${ORIGIN}/v1/kyc/documents/${doc.id}/download`,
    });
    expect(location).toBe(`/v1/kyc/documents/${doc.id}/download`);
    const verification = await json(await getVerification(setup), 200);
    expect(verification.documents).toEqual([
      {
        id: doc.id,
        document_type: "identity",
        filename: "passport scan.pdf",
        status: "uploaded",
        rejection_reasons: [],
        uploaded_at: doc.uploaded_at,
      },
    ]);
    const other = await createdDocument(await upload(setup, pdf(), "b.pdf", { document_type: "other" }));
    expect(other.description).toBeNull();
    expect(other.expiration_date).toBeNull();
  });

  it("makes download_url absolute for the origin the request came to", async () => {
    const setup = await verificationReady();
    const form = new FormData();
    form.set("file", new File([pdf()], "a.pdf"));
    form.set("document_type", "other");
    // Another origin than the typed client's: the Worker's fetch handler called directly.
    const elsewhere = await exports.default.fetch(
      addressed(`http://numbers.example.net:8443${filesPath(setup.numberId)}`, {
        method: "POST",
        headers: { Authorization: `Bearer ${setup.customer.key}` },
        body: form,
      }),
    );
    const doc = await createdDocument(elsewhere);
    expect(doc.download_url).toBe(`http://numbers.example.net:8443/v1/kyc/documents/${doc.id}/download`);
  });

  it("judges the type by the bytes: PDF, JPEG and PNG pass with an agreeing extension, in any case", async () => {
    const setup = await verificationReady();
    await createdDocument(await upload(setup, pdf(), "A.PDF"));
    expect((await createdDocument(await upload(setup, jpeg({}), "photo.jpg"))).mime_type).toBe("image/jpeg");
    expect((await createdDocument(await upload(setup, jpeg({}), "photo.JPEG"))).mime_type).toBe("image/jpeg");
    expect((await createdDocument(await upload(setup, png(), "scan.png"))).mime_type).toBe("image/png");
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

  it("refuses a PDF that runs a script, starts a program or carries a file (415, saying why), storing nothing", async () => {
    const setup = await verificationReady();
    for (const [object, what] of [
      ["2 0 obj << /Type /Action /S /JavaScript /JS (app.alert(1)) >> endobj", "JavaScript (the name /JavaScript)"],
      ["2 0 obj << /OpenAction << /S /Launch /F (calc.exe) >> >> endobj", "a Launch action (the name /Launch)"],
      ["2 0 obj << /Names << /Embedded#46iles 3 0 R >> >> endobj", "an embedded file (the name /EmbeddedFiles)"],
    ]) {
      const refused = await problem(await upload(setup, pdfOf(object!), "statement.pdf"), 415, "unsupported_media_type");
      expect(refused.detail).toContain(`The PDF contains ${what}`);
    }
    expect(await objectKeysOf(setup.kycId, setup.customer.customerId)).toEqual([]);
    await createdDocument(await upload(setup, pdfOf("2 0 obj << /Title (JavaScript /JS) >> endobj"), "statement.pdf"));
  });

  it("applies the 300 DPI rule to PNG pHYs", async () => {
    const setup = await verificationReady();
    await createdDocument(await upload(setup, png({ x: ppm(300), y: ppm(300), unit: 1 }), "a.png"));
    expect(ppm(300)).toBe(11_811);
    await createdDocument(await upload(setup, png({ x: 11_811, y: 11_811, unit: 1 }), "b.png"));
    await createdDocument(await upload(setup, png({ x: ppm(600), y: ppm(600), unit: 1 }), "c.png"));
    await createdDocument(await upload(setup, png({ x: 2835, y: 2835, unit: 0 }), "aspect-only.png"));
    await createdDocument(await upload(setup, png(), "no-phys.png"));
    const low = await problem(
      await upload(setup, png({ x: ppm(72), y: ppm(72), unit: 1 }), "low.png"),
      400,
      "resolution_too_low",
    );
    expect(low.detail).toContain("72x72");
    await problem(await upload(setup, png({ x: ppm(300), y: ppm(72), unit: 1 }), "one-axis.png"), 400, "resolution_too_low");
    await problem(await upload(setup, png({ x: ppm(299), y: ppm(299), unit: 1 }), "just-under.png"), 400, "resolution_too_low");
  });

  it("applies the 300 DPI rule to JPEG JFIF and EXIF densities", async () => {
    const setup = await verificationReady();
    await createdDocument(await upload(setup, jpeg({ jfif: { units: 1, x: 300, y: 300 } }), "a.jpg"));
    await createdDocument(await upload(setup, jpeg({ jfif: { units: 2, x: 118, y: 118 } }), "dpcm.jpg"));
    await createdDocument(await upload(setup, jpeg({ jfif: { units: 0, x: 1, y: 1 } }), "aspect.jpg"));
    await createdDocument(await upload(setup, jpeg({ exif: { x: 300, y: 300 } }), "exif.jpg"));
    await createdDocument(
      await upload(setup, jpeg({ jfif: { units: 0, x: 1, y: 1 }, exif: { x: 72, y: 72, unit: 1 } }), "exif-no-unit.jpg"),
    );
    await problem(await upload(setup, jpeg({ jfif: { units: 1, x: 72, y: 72 } }), "low.jpg"), 400, "resolution_too_low");
    await problem(await upload(setup, jpeg({ jfif: { units: 2, x: 28, y: 28 } }), "low-dpcm.jpg"), 400, "resolution_too_low");
    await problem(await upload(setup, jpeg({ exif: { x: 72, y: 72, unit: 2 } }), "low-exif.jpg"), 400, "resolution_too_low");
    await problem(
      await upload(setup, jpeg({ jfif: { units: 1, x: 300, y: 300 }, exif: { x: 96, y: 96 } }), "mixed.jpg"),
      400,
      "resolution_too_low",
    );
    await problem(await upload(setup, jpeg({ exif: { x: 100, y: 100, unit: 3 } }), "exif-cm.jpg"), 400, "resolution_too_low");
    await createdDocument(await upload(setup, jpeg({ exif: { x: 118, y: 118, unit: 3 } }), "exif-cm-ok.jpg"));
  });

  describe("refuses the files a hostile test got accepted, storing nothing", () => {
    for (const file of hostileFiles()) {
      it(`${file.name}: ${file.status} ${file.code}`, async () => {
        const setup = await verificationReady();
        await problem(await upload(setup, file.bytes, file.filename), file.status, file.code);
        const rows = await env.DB.prepare("SELECT COUNT(*) AS n FROM kyc_documents WHERE kyc_id = ?")
          .bind(setup.kycId.replace("kyc_", ""))
          .first<{ n: number }>();
        expect(rows?.n).toBe(0);
        expect(await objectKeysOf(setup.kycId, setup.customer.customerId)).toEqual([]);
      });
    }
  });

  it("accepts exactly 10,485,760 bytes and refuses 10,485,761 with 413", async () => {
    const setup = await verificationReady();
    const exact = await createdDocument(await upload(setup, pdf(MIB10), "exact.pdf"));
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
    // workerd takes a stream as a request body without the `duplex` option browsers ask for.
    const response = await callInIsolate(filesPath(setup.numberId), {
      method: "POST",
      headers: { "Content-Type": "multipart/form-data; boundary=xyz", Authorization: `Bearer ${setup.customer.key}` },
      body,
    });
    await problem(response, 413, "payload_too_large");
    expect(pulled).toBeLessThan(20);
  });

  it("refuses a declared Content-Length over the limit without reading", async () => {
    const setup = await verificationReady();
    const response = await setup.customer.call(filesPath(setup.numberId), {
      method: "POST",
      headers: {
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
      await upload(setup, pdf(), "a.pdf", {
        document_type: "passport",
        description: "d".repeat(501),
        expiration_date: "2031-02-30",
        colour: "red",
      }),
      400,
      "validation_error",
    );
    expect(bad.errors?.map((e) => e.pointer).sort()).toEqual(["/colour", "/description", "/document_type", "/expiration_date"]);
    const past = await problem(
      await upload(setup, pdf(), "a.pdf", { document_type: "other", expiration_date: yesterday }),
      400,
      "validation_error",
    );
    expect(past.errors).toEqual([{ location: "body", pointer: "/expiration_date", message: "must not be in the past" }]);
    await createdDocument(
      await upload(setup, pdf(), "a.pdf", {
        document_type: "other",
        expiration_date: todayUtc(Date.now()),
        description: "d".repeat(500),
      }),
    );
    const missing = await problem(await upload(setup, pdf(), "a.pdf", {}), 400, "validation_error");
    expect(missing.errors?.map((e) => e.pointer)).toEqual(["/document_type"]);

    const noFile = new FormData();
    noFile.set("document_type", "identity");
    expect((await problem(await uploadForm(setup, noFile), 400, "validation_error")).errors?.[0]?.pointer).toBe("/file");

    const textFile = new FormData();
    textFile.set("file", "not a file");
    textFile.set("document_type", "identity");
    expect((await problem(await uploadForm(setup, textFile), 400, "validation_error")).errors?.[0]).toMatchObject({
      pointer: "/file",
      message: "must be a file",
    });
  });

  it("refuses unknown parts, a part named __proto__ included", async () => {
    const setup = await verificationReady();
    const proto = new FormData();
    proto.set("file", new File([pdf()], "a.pdf"));
    proto.set("document_type", "identity");
    proto.set("__proto__", "x");
    proto.set("notes", "y");
    expect((await problem(await uploadForm(setup, proto), 400, "validation_error")).errors).toEqual([
      { location: "body", pointer: "/__proto__", message: "is not allowed" },
      { location: "body", pointer: "/notes", message: "is not allowed" },
    ]);
    expect(await objectKeysOf(setup.kycId, setup.customer.customerId)).toEqual([]);
  });

  it("refuses a form of more than 8 parts without parsing the rest (150,000 empty parts included)", async () => {
    const setup = await verificationReady();
    const nine = new FormData();
    nine.set("file", new File([pdf()], "a.pdf"));
    for (let i = 0; i < 8; i++) nine.append(`k${i}`, "v");
    const refused = await problem(await uploadForm(setup, nine), 400, "validation_error");
    expect(refused.detail).toContain("at most 8 parts");

    const emptyPart = '--b\r\nContent-Disposition: form-data; name="emptyfield"\r\n\r\n\r\n';
    const hostile = `${emptyPart.repeat(150_000)}--b--\r\n`;
    expect(hostile.length).toBeGreaterThan(8 * 1024 * 1024);
    const response = await setup.customer.call(filesPath(setup.numberId), {
      method: "POST",
      headers: { "Content-Type": "multipart/form-data; boundary=b" },
      body: hostile,
    });
    expect((await problem(response, 400, "validation_error")).detail).toContain("at most 8 parts");
    expect(await objectKeysOf(setup.kycId, setup.customer.customerId)).toEqual([]);
  });

  it("refuses malformed multipart bodies with a 400 naming what is wrong", async () => {
    const setup = await verificationReady();
    const send = (body: string, contentType = "multipart/form-data; boundary=b") =>
      setup.customer.call(filesPath(setup.numberId), { method: "POST", headers: { "Content-Type": contentType }, body });
    const part = '--b\r\nContent-Disposition: form-data; name="document_type"\r\n\r\nidentity\r\n';
    const cases: [Response, string][] = [
      [await send(part, "multipart/form-data"), "no valid boundary"],
      [await send(part, `multipart/form-data; boundary=${"x".repeat(71)}`), "no valid boundary"],
      [await send("no boundary here"), "does not occur"],
      [await send(part), "ends before its closing boundary"],
      [await send("--b\r\nContent-Type: text/plain\r\n\r\nx\r\n--b--"), "Content-Disposition"],
      [await send("--b\r\nContent-Disposition: form-data\r\n\r\nx\r\n--b--"), "needs a name"],
      [await send(`--b\r\nContent-Disposition: form-data; name="a"${"x".repeat(9000)}`), "headers do not end"],
    ];
    for (const [response, message] of cases) expect((await problem(response, 400, "validation_error")).detail).toContain(message);
  });

  it("takes a file name as the browser sent it (backslashes too), and refuses control characters, invisible format characters, empty and over-long names", async () => {
    const setup = await verificationReady();
    const send = (filename: string) => {
      const enc = new TextEncoder();
      const body = new Uint8Array([
        ...enc.encode('--b\r\nContent-Disposition: form-data; name="document_type"\r\n\r\nidentity\r\n'),
        ...enc.encode(`--b\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\n\r\n`),
        ...pdf(),
        ...enc.encode("\r\n--b--\r\n"),
      ]);
      return setup.customer.call(filesPath(setup.numberId), {
        method: "POST",
        headers: { "Content-Type": "multipart/form-data; boundary=b" },
        body,
      });
    };
    expect((await createdDocument(await send("C:\\scans\\passport.pdf"))).filename).toBe("C:\\scans\\passport.pdf");
    const INVISIBLE = "must not contain invisible format characters such as zero-width spaces, joiners or direction marks";
    const cases: [string, string][] = [
      ["a\u0000b.pdf", "file name must not contain control characters"],
      ["\u001b[31mred.pdf", "file name must not contain control characters"],
      ["tab\there.pdf", "file name must not contain control characters"],
      // Shown as "invoice_fdp.exe" (U+202E reverses what follows): the hostile test's name.
      ["invoice_\u202eexe.pdf", `file name ${INVISIBLE} (found U+202E)`],
      ["\u2067scan\u2069.pdf", `file name ${INVISIBLE} (found U+2067)`],
      // Shown as "passport.pdf": a zero-width space, and a soft hyphen.
      ["pass\u200bport.pdf", `file name ${INVISIBLE} (found U+200B)`],
      ["pass\u00adport.pdf", `file name ${INVISIBLE} (found U+00AD)`],
      ["", "file name must not be empty"],
      [`${"x".repeat(252)}.pdf`, "file name must be at most 255 characters"],
    ];
    for (const [filename, message] of cases) {
      expect((await problem(await send(filename), 400, "validation_error")).errors).toEqual([
        { location: "body", pointer: "/file", message },
      ]);
    }
    expect(await objectKeysOf(setup.kycId, setup.customer.customerId)).toHaveLength(1);
  });

  it("refuses a text field that is not valid UTF-8, naming it", async () => {
    const setup = await verificationReady();
    const enc = new TextEncoder();
    const body = new Uint8Array([
      ...enc.encode('--b\r\nContent-Disposition: form-data; name="document_type"\r\n\r\nidentity\r\n'),
      ...enc.encode('--b\r\nContent-Disposition: form-data; name="description"\r\n\r\n'),
      0xc3,
      0x28,
      ...enc.encode('\r\n--b\r\nContent-Disposition: form-data; name="file"; filename="a.pdf"\r\n\r\n'),
      ...pdf(),
      ...enc.encode("\r\n--b--\r\n"),
    ]);
    const response = await setup.customer.call(filesPath(setup.numberId), {
      method: "POST",
      headers: { "Content-Type": "multipart/form-data; boundary=b" },
      body,
    });
    expect((await problem(response, 400, "validation_error")).errors).toEqual([
      { location: "body", pointer: "/description", message: "must be valid UTF-8 text" },
    ]);
  });

  it("needs multipart/form-data (415 otherwise)", async () => {
    const setup = await verificationReady();
    const response = await setup.customer.callJson("POST", filesPath(setup.numberId), { document_type: "identity" });
    await problem(response, 415, "unsupported_media_type");
  });

  it("holds at most 20 documents; the refused 21st leaves no object in R2", async () => {
    const setup = await verificationReady();
    for (let i = 0; i < 20; i++) await createdDocument(await upload(setup, pdf(), `doc-${i}.pdf`));
    const refused = await problem(await upload(setup, pdf(), "doc-21.pdf"), 409, "conflict");
    expect(refused.detail).toContain("20");
    expect((await objectKeysOf(setup.kycId, setup.customer.customerId)).length).toBe(20);
    const verification = await json(await getVerification(setup), 200);
    expect(verification.documents).toHaveLength(20);
  });

  it("lets only one of several concurrent uploads take a verification's last place", async () => {
    const setup = await verificationReady();
    for (let i = 0; i < 19; i++) await createdDocument(await upload(setup, pdf(), `doc-${i}.pdf`));
    // Each passes the check made before the body is read; the insert's own guard decides.
    const answers = await Promise.all(Array.from({ length: 4 }, (_, i) => upload(setup, pdf(), `last-${i}.pdf`)));
    const statuses = answers.map((answer) => answer.status).sort();
    for (const answer of answers) await answer.text();
    expect(statuses).toEqual([201, 409, 409, 409]);
    expect((await json(await getVerification(setup), 200)).documents).toHaveLength(20);
    expect((await objectKeysOf(setup.kycId, setup.customer.customerId)).length).toBe(20);
  });

  it("refuses the 21st document and an upload to a locked verification before reading the body, with or without an Idempotency-Key", async () => {
    /** A body that counts how often it is read from; it holds nothing until pulled. */
    function watchedBody() {
      const watched = { pulls: 0, body: new ReadableStream<Uint8Array>() };
      watched.body = new ReadableStream<Uint8Array>(
        {
          pull(controller) {
            watched.pulls++;
            controller.enqueue(new Uint8Array(1024 * 1024));
          },
        },
        { highWaterMark: 0 },
      );
      return watched;
    }
    const send = (setup: Setup, body: ReadableStream<Uint8Array>, headers: Record<string, string>) =>
      callInIsolate(filesPath(setup.numberId), {
        method: "POST",
        headers: { ...headers, "Content-Type": "multipart/form-data; boundary=b", Authorization: `Bearer ${setup.customer.key}` },
        body,
      });

    const full = await verificationReady();
    for (let i = 0; i < 20; i++) await createdDocument(await upload(full, pdf(), `doc-${i}.pdf`));
    const approved = await verificationReady();
    await json(await review(approved.kycId, { status: "under_review" }), 200);
    await json(await review(approved.kycId, { status: "approved" }), 200);
    const withAndWithoutKey: Record<string, string>[] = [{}, { "Idempotency-Key": `late-${crypto.randomUUID()}` }];
    for (const headers of withAndWithoutKey) {
      const toFull = watchedBody();
      await problem(await send(full, toFull.body, headers), 409, "conflict");
      expect(toFull.pulls).toBe(0);
      const toApproved = watchedBody();
      await problem(await send(approved, toApproved.body, headers), 409, "verification_locked");
      expect(toApproved.pulls).toBe(0);
    }
  });

  it("logs a client that goes away mid-upload as client_closed (info), not as a 500", async () => {
    const setup = await verificationReady();
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ < 2) controller.enqueue(new Uint8Array(64 * 1024));
        else controller.error(new Error("Network connection lost."));
      },
    });
    const { result, lines } = await withLogs(() =>
      callInIsolate(filesPath(setup.numberId), {
        method: "POST",
        headers: { "Content-Type": "multipart/form-data; boundary=b", Authorization: `Bearer ${setup.customer.key}` },
        body,
      }),
    );
    expect(result.status).toBe(499);
    const line = lines.find((l) => l.path === `/v1/numbers/${setup.numberId}/KYC/files`);
    expect(line).toMatchObject({ level: "info", event: "client_closed", status: 499 });
    expect(line).not.toHaveProperty("error");
    expect(await objectKeysOf(setup.kycId, setup.customer.customerId)).toEqual([]);
  });

  it("is allowed while pending, under_review and rejected, and locked once approved", async () => {
    const setup = await verificationReady();
    await createdDocument(await upload(setup, pdf(), "pending.pdf"));
    await json(await review(setup.kycId, { status: "under_review" }), 200);
    // A file added during the review is part of it.
    expect((await createdDocument(await upload(setup, pdf(), "review.pdf"))).status).toBe("pending_review");
    await json(await review(setup.kycId, { status: "rejected", rejection_reason: "blurry" }), 200);
    await createdDocument(await upload(setup, pdf(), "rejected.pdf"));

    const approvedSetup = await verificationReady();
    await json(await review(approvedSetup.kycId, { status: "under_review" }), 200);
    await json(await review(approvedSetup.kycId, { status: "approved" }), 200);
    await problem(await upload(approvedSetup, pdf(), "late.pdf"), 409, "verification_locked");
    expect(await objectKeysOf(approvedSetup.kycId, approvedSetup.customer.customerId)).toEqual([]);
  });
});

describe("download", () => {
  it("streams the exact bytes with attachment, nosniff, no-store, ETag and the sniffed type", async () => {
    const setup = await verificationReady();
    const bytes = png({ x: ppm(300), y: ppm(300), unit: 1 });
    const doc = await createdDocument(await upload(setup, bytes, "Ürkund scan (1).png"));
    // download_url leads to the download route.
    expect(setup.customer.api.v1.kyc.documents[":document_id"].download.$url({ param: { document_id: doc.id } }).href).toBe(
      doc.download_url,
    );
    const response = await download(setup.customer, doc.id);
    expect(response.status).toBe(200);
    expect(response.headers.get("Content-Type")).toBe("image/png");
    expect(response.headers.get("Content-Disposition")).toBe(
      `attachment; filename="_rkund scan (1).png"; filename*=UTF-8''%C3%9Crkund%20scan%20%281%29.png`,
    );
    expect(response.headers.get("X-Content-Type-Options")).toBe("nosniff");
    expect(response.headers.get("Cache-Control")).toBe("private, no-store");
    const etag = response.headers.get("ETag") ?? "";
    expect(etag).toMatch(/^"[^"]+"$/);
    expect(new Uint8Array(await response.arrayBuffer())).toEqual(bytes);

    for (const ifNoneMatch of [etag, `W/${etag}`, `"other", ${etag}`, "*"]) {
      const again = await download(setup.customer, doc.id, { "If-None-Match": ifNoneMatch });
      expect(again.status).toBe(304);
      expect(again.headers.get("ETag")).toBe(etag);
      expect(await again.text()).toBe("");
    }
    // A different or malformed validator never fails the request: the file comes back whole.
    for (const ifNoneMatch of ['"other"', '"unterminated', "no quotes at all"]) {
      const fresh = await download(setup.customer, doc.id, { "If-None-Match": ifNoneMatch, "If-Modified-Since": "not a date" });
      expect(fresh.status).toBe(200);
      expect(new Uint8Array(await fresh.arrayBuffer())).toEqual(bytes);
    }
  });

  it("returns a 10 MiB file byte for byte", async () => {
    const setup = await verificationReady();
    const bytes = pdf(MIB10);
    const doc = await createdDocument(await upload(setup, bytes, "big.pdf"));
    const response = await download(setup.customer, doc.id);
    expect(response.headers.get("Content-Length")).toBe(String(MIB10));
    const got = new Uint8Array(await response.arrayBuffer());
    expect(got.length).toBe(bytes.length);
    expect(got.every((b, i) => b === bytes[i])).toBe(true);
  });

  it("answers another account's document, an unknown one and a malformed id with 404, 404 and 400", async () => {
    const setup = await verificationReady();
    const doc = await createdDocument(await upload(setup, pdf(), "a.pdf"));
    const stranger = await createCustomer();
    await problem(await download(stranger, doc.id), 404, "not_found");
    await problem(await deleteDocument(stranger, doc.id), 404, "not_found");
    await problem(await download(setup.customer, `doc_${crypto.randomUUID()}`), 404, "not_found");
    await problem(await download(setup.customer, "doc_42"), 400, "validation_error");
    await problem(
      await anonymous.v1.kyc.documents[":document_id"].download.$get({ param: { document_id: doc.id } }),
      401,
      "unauthorized",
    );
    const still = await download(setup.customer, doc.id);
    expect(still.status).toBe(200);
    await still.arrayBuffer();
  });
});

describe("Content-Disposition", () => {
  it("gives an ASCII fallback without quotes, backslashes or line breaks, and the exact name in filename*", () => {
    expect(contentDisposition('a "b"\\c\r\nd.pdf')).toBe(
      `attachment; filename="a _b__c__d.pdf"; filename*=UTF-8''a%20%22b%22%5Cc%0D%0Ad.pdf`,
    );
    expect(contentDisposition("报告.pdf")).toBe(`attachment; filename="__.pdf"; filename*=UTF-8''%E6%8A%A5%E5%91%8A.pdf`);
    expect(contentDisposition("it's.pdf")).toBe(`attachment; filename="it's.pdf"; filename*=UTF-8''it%27s.pdf`);
  });
});

describe("delete", () => {
  it("removes the row and the object; a second delete is a 404", async () => {
    const setup = await verificationReady();
    const doc = await createdDocument(await upload(setup, pdf(), "a.pdf"));
    const key = await onlyObjectKeyOf(setup);
    expect(await env.DOCUMENTS.head(key)).not.toBeNull();

    const deleted = await json(await deleteDocument(setup.customer, doc.id), 200);
    expect(deleted).toEqual({ message: `Document ${doc.id} deleted`, deleted_at: expect.stringMatching(/Z$/) });
    expect(await env.DOCUMENTS.head(key)).toBeNull();
    const row = await env.DB.prepare("SELECT id FROM kyc_documents WHERE id = ?").bind(doc.id.replace("doc_", "")).first();
    expect(row).toBeNull();
    expect((await json(await getVerification(setup), 200)).documents).toEqual([]);

    await problem(await deleteDocument(setup.customer, doc.id), 404, "not_found");
    await problem(await download(setup.customer, doc.id), 404, "not_found");
  });

  it("is allowed under review and refused once approved or rejected (409 verification_completed)", async () => {
    const setup = await verificationReady();
    const first = await createdDocument(await upload(setup, pdf(), "a.pdf"));
    const second = await createdDocument(await upload(setup, pdf(), "b.pdf"));
    await json(await review(setup.kycId, { status: "under_review" }), 200);
    await json(await deleteDocument(setup.customer, first.id), 200);
    await json(await review(setup.kycId, { status: "approved" }), 200);
    await problem(await deleteDocument(setup.customer, second.id), 409, "verification_completed");

    const rejected = await verificationReady();
    const doc = await createdDocument(await upload(rejected, pdf(), "a.pdf"));
    await json(await review(rejected.kycId, { status: "under_review" }), 200);
    await json(await review(rejected.kycId, { status: "rejected", rejection_reason: "expired" }), 200);
    await problem(await deleteDocument(rejected.customer, doc.id), 409, "verification_completed");
    expect(await objectKeysOf(rejected.kycId, rejected.customer.customerId)).toHaveLength(1);
  });
});

describe("R2 and D1 stay consistent", () => {
  async function verificationRow(kycId: string): Promise<KycRow> {
    const db = createDatabase(env.DB);
    const row = await db
      .select()
      .from(kycVerifications)
      .where(eq(kycVerifications.id, kycId.replace("kyc_", "")))
      .get();
    if (!row) throw new Error(`no verification ${kycId}`);
    return row;
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
    const file: CheckedFile = {
      content: pdf(),
      filename: "a.pdf",
      mimeType: "application/pdf",
      documentType: "identity",
      description: null,
      expirationDate: null,
    };
    await expect(
      storeDocument(failingDocumentInserts(), new Outbox(), env.DOCUMENTS, verification, file, Date.now()),
    ).rejects.toThrow("simulated outage");
    expect(await objectKeysOf(setup.kycId, setup.customer.customerId)).toEqual([]);
    const stored = await storeDocument(createDatabase(env.DB), new Outbox(), env.DOCUMENTS, verification, file, Date.now());
    if (!stored.ok) throw new Error(`refused: ${stored.reason}`);
    expect(stored.value.filename).toBe("a.pdf");
    expect(await objectKeysOf(setup.kycId, setup.customer.customerId)).toEqual([stored.value.objectKey]);
  });

  it("answers a delete whose object removal fails as deleted, and leaves the object to the sweep", async () => {
    const setup = await verificationReady();
    const doc = await createdDocument(await upload(setup, pdf(), "a.pdf"));
    const key = await onlyObjectKeyOf(setup);
    const failingDeletes = new Proxy(env.DOCUMENTS, {
      get(target, property, receiver) {
        if (property === "delete") return () => Promise.reject(new Error("R2 unavailable"));
        const value = Reflect.get(target, property, receiver);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const outcome = await removeDocument(
      createDatabase(env.DB),
      new Outbox(),
      failingDeletes,
      setup.customer.customerId,
      doc.id.replace("doc_", ""),
      Date.now(),
    );
    expect(outcome).toMatchObject({ ok: true, value: { objectKey: key } });
    expect(await env.DOCUMENTS.head(key)).not.toBeNull();
    expect(await sweepOrphanObjects(createDatabase(env.DB), env.DOCUMENTS, Date.now() + ORPHAN_AGE_MS)).toBeGreaterThanOrEqual(1);
    expect(await env.DOCUMENTS.head(key)).toBeNull();
  });

  it("sweeps objects without a row once they are an hour old, from the scheduled handler, and keeps the rest", async () => {
    const setup = await verificationReady();
    const doc = await createdDocument(await upload(setup, pdf(), "kept.pdf"));
    const orphanKey = `${OBJECT_PREFIX}${setup.customer.customerId}/${setup.kycId.replace("kyc_", "")}/${crypto.randomUUID()}`;
    await env.DOCUMENTS.put(orphanKey, pdf());
    const outside = `elsewhere/${crypto.randomUUID()}`;
    await env.DOCUMENTS.put(outside, "not a document");

    expect(await sweepOrphanObjects(createDatabase(env.DB), env.DOCUMENTS, Date.now())).toBe(0);
    expect(await env.DOCUMENTS.head(orphanKey)).not.toBeNull();

    const ctx = createExecutionContext();
    await worker.scheduled(
      createScheduledController({ scheduledTime: Date.now() + ORPHAN_AGE_MS + 1000, cron: "*/15 * * * *" }),
      env,
      ctx,
    );
    await waitOnExecutionContext(ctx);
    expect(await env.DOCUMENTS.head(orphanKey)).toBeNull();
    expect(await env.DOCUMENTS.head(outside)).not.toBeNull();
    const kept = await download(setup.customer, doc.id);
    expect(kept.status).toBe(200);
    await kept.arrayBuffer();
  });
});
