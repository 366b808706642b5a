// What a newcomer meets first: `/` in a browser and from an API client, and the portal saying that a local deployment
// (npm start's, WEBHOOK_ALLOW_INSECURE_URLS on) is one.
import { describe, expect, it } from "vitest";
import { call, callInIsolate, createCustomer, problem } from "./helpers.ts";
import { pageText, signedIn } from "./portal.ts";

/** What Chrome sends when a person opens an address. */
const BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8";

describe("the root path", () => {
  it("sends a browser to the portal", async () => {
    for (const method of ["GET", "HEAD"]) {
      const answer = await call("/", { method, headers: { Accept: BROWSER_ACCEPT }, redirect: "manual" });
      expect(answer.status).toBe(302);
      expect(answer.headers.get("Location")).toBe("/portal");
      expect(answer.headers.get("Vary")).toBe("Accept");
    }
    // Where it leads: the portal's door, which sends a visitor without a session on to sign in.
    const portal = await call("/portal", { headers: { Accept: BROWSER_ACCEPT }, redirect: "manual" });
    expect(portal.status).toBe(303);
  });

  it("answers an API client the 404 problem of any unknown path", async () => {
    for (const accept of [
      undefined,
      "*/*",
      "application/json",
      "application/problem+json",
      "text/html;q=0.5, application/json",
    ]) {
      const answer = await call("/", { headers: accept === undefined ? {} : { Accept: accept } });
      expect(answer.headers.get("Vary"), accept).toBe("Accept");
      await problem(answer, 404, "not_found");
    }
    // Only a GET or HEAD is redirected: a form posted to / gets the 404 of any unknown path, whatever it accepts.
    await problem(await call("/", { method: "POST", headers: { Accept: BROWSER_ACCEPT } }), 404, "not_found");
  });
});

describe("local mode", () => {
  it("is said under the portal's top bar where webhook URLs may be insecure, and nowhere else", async () => {
    const visitor = await signedIn(await createCustomer());
    const page = (value: string) =>
      callInIsolate(
        "/portal/orders",
        { headers: { Cookie: visitor.cookie } },
        { bindings: { WEBHOOK_ALLOW_INSECURE_URLS: value } },
      );
    const local = await pageText(await page("true"), 200);
    expect(local).toMatch(
      /<\/header><p class="local-mode" role="note"><strong>Local mode<\/strong> \(WEBHOOK_ALLOW_INSECURE_URLS\): webhook endpoints may use http:\/\//,
    );
    for (const value of ["", "1", "TRUE"]) expect(await pageText(await page(value), 200)).not.toContain("Local mode");
  });
});
