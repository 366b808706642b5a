// Generated absolute URLs (a document's download_url, a problem's type, the OpenAPI servers) start with PUBLIC_BASE_URL
// when it is set, whatever Host the client sent; without it, with the request's own origin.
import { describe, expect, it } from "vitest";
import { createdDocument, pdf, uploadFile } from "./files.ts";
import { callInIsolate, problem, submittedVerification, type TestCustomer } from "./helpers.ts";

/** A Host an attacker chose; it must never make its way into a link the API hands out. */
const HOSTILE = "https://attacker.example";
const BASE = "https://api.numbers.example";

/** The deployment's variables: PUBLIC_BASE_URL set (with a trailing slash, which must not double), or left empty. */
const configured = { origin: HOSTILE, bindings: { PUBLIC_BASE_URL: `${BASE}/` } };
const unconfigured = { origin: HOSTILE, bindings: { PUBLIC_BASE_URL: "" } };

/** The JSON body of a raw 200 answer (these routes' own typed answers are not what callInIsolate returns). */
async function ok<T>(response: Response): Promise<T> {
  const text = await response.text();
  expect(response.status, text).toBe(200);
  return JSON.parse(text);
}

/** What the three kinds of generated URL come out as, for a request to HOSTILE under these variables. */
async function generatedUrls(customer: TestCustomer, numberId: string, options: typeof configured) {
  const auth = { Authorization: `Bearer ${customer.key}` };
  const notFound = await problem(await callInIsolate("/no/such/route", {}, options), 404, "not_found");
  const unauthorized = await problem(await callInIsolate("/admin/customers", {}, options), 401, "unauthorized");
  const problemType = await ok<{ type: string }>(await callInIsolate("/problems/conflict", {}, options));
  const document = await ok<{ servers: { url: string }[]; info: { contact: { url: string } } }>(
    await callInIsolate("/openapi.json", {}, options),
  );
  const inIsolate = { call: (path: string, init: RequestInit = {}) => callInIsolate(path, { ...init, headers: auth }, options) };
  const uploaded = await createdDocument(await uploadFile(inIsolate, `num_${numberId}`, pdf(), "a.pdf"));
  return {
    problemTypes: [notFound.type, unauthorized.type, problemType.type],
    servers: document.servers.map((server) => server.url),
    contact: document.info.contact.url,
    downloadUrl: uploaded.download_url,
    documentId: uploaded.id,
  };
}

describe("PUBLIC_BASE_URL", () => {
  it("starts every generated absolute URL when set, whatever Host the request came with", async () => {
    const { customer, numberId } = await submittedVerification();
    const urls = await generatedUrls(customer, numberId, configured);
    expect(urls).toEqual({
      problemTypes: [`${BASE}/problems/not_found`, `${BASE}/problems/unauthorized`, `${BASE}/problems/conflict`],
      servers: [BASE],
      contact: `${BASE}/docs`,
      downloadUrl: `${BASE}/v1/kyc/documents/${urls.documentId}/download`,
      documentId: urls.documentId,
    });
  });

  it("leaves them to the request's own origin when empty", async () => {
    const { customer, numberId } = await submittedVerification();
    const urls = await generatedUrls(customer, numberId, unconfigured);
    expect(urls).toEqual({
      problemTypes: [`${HOSTILE}/problems/not_found`, `${HOSTILE}/problems/unauthorized`, `${HOSTILE}/problems/conflict`],
      servers: [HOSTILE],
      contact: `${HOSTILE}/docs`,
      downloadUrl: `${HOSTILE}/v1/kyc/documents/${urls.documentId}/download`,
      documentId: urls.documentId,
    });
  });
});
