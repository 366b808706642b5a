// Security headers: nosniff and no-referrer on every response; no-store on every authenticated one (errors included);
// the HTML reference page under a nonce-based Content-Security-Policy and X-Frame-Options: DENY; no CORS headers.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { SCALAR_BUNDLE_PATH } from "../src/service/docs.ts";
import { TEST_ADMIN_TOKEN } from "./constants.ts";
import { createdDocument, pdf, uploadFile } from "./files.ts";
import { call, submittedVerification, type TestCustomer } from "./helpers.ts";

/** A label, the request's answer's status and headers; every body is read (and dropped). */
interface Answer {
  label: string;
  status: number;
  headers: Headers;
}

async function answer(label: string, path: string, init: RequestInit = {}): Promise<Answer> {
  // Every request comes from a site of its own: the API must not answer with CORS headers for it.
  const headers = { Origin: "https://elsewhere.example", ...Object.fromEntries(new Headers(init.headers)) };
  const response = await call(path, { ...init, headers });
  await response.arrayBuffer();
  return { label: `${label}: ${init.method ?? "GET"} ${path}`, status: response.status, headers: response.headers };
}

/** A customer with a verification holding one document, and the path of its download. */
async function customerWithDocument(): Promise<{ customer: TestCustomer; download: string }> {
  const { customer, numberId } = await submittedVerification();
  const document = await createdDocument(await uploadFile(customer, `num_${numberId}`, pdf(), "a.pdf"));
  return { customer, download: new URL(document.download_url).pathname };
}

/** Answers of the public routes: health, the description, a problem type, the reference page, an unknown path. */
async function publicAnswers(): Promise<Answer[]> {
  return [
    await answer("health", "/healthz"),
    await answer("description", "/openapi.json"),
    await answer("problem type", "/problems/not_found"),
    await answer("reference page", "/docs"),
    await answer("unknown path", "/no/such/thing"),
    await answer("wrong method", "/healthz", { method: "DELETE" }),
  ];
}

/** Answers of the customer and operator routes: successes, a secret, and every kind of error before and after the guard. */
async function authenticatedAnswers(): Promise<Answer[]> {
  const { customer, download } = await customerWithDocument();
  const key = { Authorization: `Bearer ${customer.key}` };
  const admin = { Authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
  const orders = `/api/customers/${customer.slug}/orders`;
  const post = (body: string, headers: Record<string, string>) => ({
    method: "POST",
    headers: { ...headers, "Content-Type": "application/json" },
    body,
  });
  return [
    await answer("customer list", orders, { headers: key }),
    await answer("customer, bad query", `${orders}?limit=0`, { headers: key }),
    await answer("customer, unknown order", `${orders}/${crypto.randomUUID()}`, { headers: key }),
    await answer("customer, no credential", orders),
    await answer("customer, unknown route", "/api/no/such/thing", { headers: key }),
    await answer("customer, malformed JSON", orders, post("{", key)),
    await answer("customer, body too large", orders, post(`"${"x".repeat(70 * 1024)}"`, key)),
    await answer("KYC download", download, { headers: key }),
    await answer("KYC, no credential", download),
    await answer("operator list", "/admin/customers", { headers: admin }),
    await answer("operator, new API key (a secret)", `/admin/customers/${customer.slug}/api-keys`, post('{"name":"k"}', admin)),
    await answer("operator, no credential", "/admin/customers"),
    await answer("operator, bad body", "/admin/customers", post("{}", admin)),
  ];
}

describe("security headers", () => {
  it("answer every response with nosniff and no-referrer, and no CORS headers", async () => {
    const answers = [...(await publicAnswers()), ...(await authenticatedAnswers())];
    expect(new Set(answers.map((a) => a.status))).toEqual(new Set([200, 201, 400, 401, 404, 405, 413]));
    for (const { label, headers } of answers) {
      expect(headers.get("X-Content-Type-Options"), label).toBe("nosniff");
      expect(headers.get("Referrer-Policy"), label).toBe("no-referrer");
      const cors = [...headers.keys()].filter((name) => name.startsWith("access-control-"));
      expect(cors, label).toEqual([]);
    }
  });

  it("forbid storing any answer of /api, /v1 or /admin, errors included", async () => {
    for (const { label, status, headers } of await authenticatedAnswers()) {
      expect(headers.get("Cache-Control"), `${label} (${status})`).toMatch(/(^|[ ,])no-store($|[ ,])/);
    }
  });

  it("keep the download's own private, no-store", async () => {
    const { customer, download } = await customerWithDocument();
    const response = await answer("download", download, { headers: { Authorization: `Bearer ${customer.key}` } });
    expect(response.status).toBe(200);
    expect(response.headers.get("Cache-Control")).toBe("private, no-store");
  });

  it("put the reference page under a nonce-based CSP, its scripts carrying the nonce, and forbid framing it", async () => {
    const nonces = new Set<string>();
    for (let i = 0; i < 2; i++) {
      const response = await call("/docs");
      const html = await response.text();
      expect(response.status).toBe(200);
      expect(response.headers.get("X-Frame-Options")).toBe("DENY");
      const policy = response.headers.get("Content-Security-Policy") ?? "";
      const directives = new Map(
        policy.split(";").map((directive) => {
          const [name = "", ...values] = directive.trim().split(/\s+/);
          return [name, values];
        }),
      );
      const scriptSrc = directives.get("script-src") ?? expect.fail(`no script-src in ${policy}`);
      expect(scriptSrc).not.toContain("'unsafe-inline'");
      expect(scriptSrc).not.toContain("'unsafe-eval'");
      expect(directives.get("default-src")).toEqual(["'self'"]);
      expect(directives.get("object-src")).toEqual(["'none'"]);
      expect(directives.get("base-uri")).toEqual(["'none'"]);
      expect(directives.get("frame-ancestors")).toEqual(["'none'"]);
      const nonce = scriptSrc.map((source) => /^'nonce-([A-Za-z0-9+/=]{16,})'$/.exec(source)?.[1]).find(Boolean);
      if (!nonce) expect.fail(`no nonce in script-src: ${policy}`);
      nonces.add(nonce);
      const scripts = html.match(/<script\b[^>]*>/g) ?? [];
      expect(scripts).toHaveLength(2);
      for (const script of scripts) expect(script).toContain(` nonce="${nonce}"`);
      expect(html).toContain(`<script src="${SCALAR_BUNDLE_PATH}" nonce="${nonce}"></script>`);
    }
    // A nonce is good for one answer only.
    expect(nonces.size).toBe(2);
  });

  it("send the reference page's script from the static assets with nosniff and no-referrer", async () => {
    const bundle = await env.ASSETS.fetch(new URL(SCALAR_BUNDLE_PATH, "http://localhost"));
    await bundle.arrayBuffer();
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get("X-Content-Type-Options")).toBe("nosniff");
    expect(bundle.headers.get("Referrer-Policy")).toBe("no-referrer");
  });
});
