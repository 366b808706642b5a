// The console's reviews in a real browser (OPERATOR.md, "The console"): a compliance member finds a number's
// verification in the review queue, starts the review, rejects it with a reason on its document, and after the customer
// replaced the document and resubmitted, approves it; the customer's API shows each step. A viewer sees the same page
// without a review form, and a forged approval of theirs is refused and changes nothing. The page puts the evidence
// first: a document opened (only when asked for) large beside the details at 1280 px, above them at 375 px, the
// decision after both; an approval without documents is asked about first.
import type { Page } from "playwright-core";
import { expect, it } from "vitest";
import { json, overflow, PDF, usePortal } from "./helpers.ts";

const portal = usePortal();

/** A request from the page itself (the browser sends its cookies, and its Origin with a POST): status, headers, text. */
async function fromPage(
  page: Page,
  path: string,
  form?: Record<string, string>,
): Promise<{ status: number; headers: Record<string, string>; text: string }> {
  const init = form ? `{ method: "POST", body: new URLSearchParams(${JSON.stringify(form)}) }` : "{}";
  return (await page.evaluate(`fetch(${JSON.stringify(path)}, ${init}).then(async (r) => ({
    status: r.status, headers: Object.fromEntries(r.headers), text: await r.text() }))`)) as {
    status: number;
    headers: Record<string, string>;
    text: string;
  };
}

/** The page at 375 px wide scrolls nothing sideways; the viewport is put back after. */
async function fitsSmallScreen(page: Page): Promise<void> {
  const viewport = page.viewportSize() ?? { width: 1280, height: 800 };
  await page.setViewportSize({ width: 375, height: 800 });
  expect(await overflow(page)).toBe(0);
  await page.setViewportSize(viewport);
}

it("a compliance member rejects a document with a reason, then approves the replacement; a viewer cannot", {
  timeout: 120_000,
}, async () => {
  await portal.makeOrderable("US", "mobile");
  const account = await portal.createAccount("reviewed");
  const order = await json(
    await account.api.orders.$post({
      param: { customer_slug: account.slug },
      json: { number_type: "mobile", country_code: "US", quantity: 1 },
    }),
    201,
  );
  const { numberId, phone } = await portal.allocateNumber(order.order_id);
  const headers = { Authorization: `Bearer ${account.key}` };
  const kycPath = `${portal.base}/v1/numbers/num_${numberId}/KYC`;
  const submitted = await fetch(`${kycPath}/address`, {
    method: "POST",
    headers: { ...headers, "Content-Type": "application/json" },
    body: JSON.stringify({
      verification_type: "individual",
      address_line_1: "1 Market St",
      city: "San Francisco",
      state_province: "CA",
      postal_code: "94105",
      country: "US",
    }),
  });
  expect(submitted.status).toBe(201);
  const upload = async (filename: string) => {
    const form = new FormData();
    form.set("file", new File([PDF], filename));
    form.set("document_type", "identity");
    const uploaded = await fetch(`${kycPath}/files`, { method: "POST", headers, body: form });
    expect(uploaded.status).toBe(201);
    return ((await uploaded.json()) as { id: string }).id;
  };
  const firstDocument = await upload("passport.pdf");
  type Verification = {
    id: string;
    status: string;
    documents: { id: string; filename: string; status: string; rejection_reasons: { code: string; document_id?: string }[] }[];
  };
  const verification = async () => (await (await fetch(kycPath, { headers })).json()) as Verification;
  const kycId = (await verification()).id;

  // The queue, filtered to the account, links to the verification.
  const { page } = await portal.signInToConsole("compliance");
  // A second country for the filters to offer.
  await portal.makeOrderable("GB", "landline");
  await page.goto(`${portal.base}/ops/reviews?customer_slug=${account.slug}`);
  expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Reviews");
  expect(await page.locator("tbody tr").count()).toBe(1);
  expect(await page.locator("tbody tr").textContent()).toContain(account.slug);
  await portal.screenshot(page, "console-reviews");
  await fitsSmallScreen(page);
  // The filters (open, one in use) narrow by the number's country and type: another pair's queue leaves it out.
  await page.getByRole("group", { name: "Countries" }).locator("summary").click();
  await page.getByLabel("United Kingdom (GB)").check();
  await page.getByRole("button", { name: "Apply" }).click();
  await page.waitForURL((url) => url.searchParams.get("country_code") === "GB");
  expect(await page.locator("tbody tr").count()).toBe(0);
  await page.goto(`${portal.base}/ops/reviews?customer_slug=${account.slug}&country_code=US&number_type=mobile`);
  // The number by its phone number, as staff say it.
  await page.getByRole("link", { name: phone }).click();
  await page.waitForURL(`${portal.base}/ops/reviews/kyc/${kycId}`);
  // The evidence before the decision; a document opens beside the details when asked for, a PDF in a new tab from the
  // console's own document route.
  const top = async (name: string) => (await page.getByRole("region", { name }).boundingBox())?.y ?? Number.NaN;
  expect(await top("Documents")).toBeLessThan(await top("Decision"));
  expect(await top("Details")).toBeLessThan(await top("Decision"));
  await page.getByRole("link", { name: "Open passport.pdf beside the details" }).click();
  await page.waitForURL(`${portal.base}/ops/reviews/kyc/${kycId}?document=${firstDocument}`);
  const pdfLink = page.getByRole("link", { name: "Open passport.pdf in a new tab" });
  expect(await pdfLink.getAttribute("href")).toBe(`/ops/documents/${firstDocument}`);
  expect(await pdfLink.getAttribute("target")).toBe("_blank");
  const bytes = await fromPage(page, `/ops/documents/${firstDocument}`);
  expect(bytes.status).toBe(200);
  expect(bytes.headers["content-disposition"]).toMatch(/^inline/);
  expect(bytes.headers["x-content-type-options"]).toBe("nosniff");
  expect(bytes.headers["cache-control"]).toBe("no-store");
  expect(bytes.text).toBe(PDF.toString());

  await page.getByRole("button", { name: "Start review" }).click();
  await page.waitForURL(/done=started$/);
  expect(await page.getByRole("status").textContent()).toBe("The review is started.");
  expect((await verification()).status).toBe("under_review");
  await portal.screenshot(page, "console-verification");
  await fitsSmallScreen(page);

  // A rejection without its reason text is refused beside the field, and changes nothing.
  await page.getByLabel("Reason code for passport.pdf").selectOption("document_illegible");
  await page.getByRole("button", { name: "Reject" }).click();
  expect(await page.locator("#rejection_reason-error").textContent()).toContain("is required when rejecting");
  expect((await verification()).status).toBe("under_review");
  await page.getByLabel("Reason code for passport.pdf").selectOption("document_illegible");
  await page.getByLabel("Note on passport.pdf").fill("The scan is cut off at the bottom");
  await page.getByLabel("Rejection reason").fill("The identity document cannot be read");
  await page.getByRole("button", { name: "Reject" }).click();
  await page.waitForURL(/done=rejected$/);
  const rejected = await verification();
  expect(rejected.status).toBe("rejected");
  expect(rejected.documents[0]).toMatchObject({
    id: firstDocument,
    status: "rejected",
    rejection_reasons: [{ code: "document_illegible", document_id: firstDocument, note: "The scan is cut off at the bottom" }],
  });
  expect(await page.locator("main").textContent()).toContain("The scan is cut off at the bottom");

  // The customer replaces the document and resubmits.
  const deleted = await fetch(`${portal.base}/v1/kyc/documents/${firstDocument}`, { method: "DELETE", headers });
  expect(deleted.status).toBe(200);
  await upload("passport-rescanned.pdf");
  const resubmitted = await fetch(`${kycPath}/resubmit`, { method: "POST", headers });
  expect(resubmitted.status).toBe(200);
  expect((await verification()).status).toBe("pending");

  await page.goto(`${portal.base}/ops/reviews/kyc/${kycId}`);
  await page.getByRole("button", { name: "Start review" }).click();
  await page.waitForURL(/done=started$/);

  // A viewer sees the page but no review form, is not given the file, and a forged approval is refused.
  const viewer = await portal.signInToConsole("viewer");
  await viewer.page.goto(`${portal.base}/ops/reviews/kyc/${kycId}`);
  expect(await viewer.page.getByRole("heading", { level: 1 }).textContent()).toContain("Verification");
  for (const button of ["Start review", "Approve", "Reject"]) {
    expect(await viewer.page.getByRole("button", { name: button }).count()).toBe(0);
  }
  const replacement = (await verification()).documents[0]!.id;
  expect((await fromPage(viewer.page, `/ops/documents/${replacement}`)).status).toBe(403);
  const token = await viewer.page.locator("input[name=csrf_token]").first().inputValue();
  const forged = await fromPage(viewer.page, `/ops/reviews/kyc/${kycId}/review`, { csrf_token: token, status: "approved" });
  expect(forged.status).toBe(403);
  expect(forged.text).toContain("yours is viewer");
  expect((await verification()).status).toBe("under_review");

  await page.getByRole("button", { name: "Approve" }).click();
  await page.waitForURL(/done=approved$/);
  expect(await page.getByRole("status").textContent()).toBe("The verification is approved.");
  const approved = await verification();
  expect(approved.status).toBe("approved");
  expect(approved.documents.map((d) => [d.filename, d.status])).toEqual([["passport-rescanned.pdf", "verified"]]);
});

/** A 1×1 PNG that states no resolution, as the upload's checks take it. */
const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=", "base64");

/** A new account's business profile, "Berlin office", without documents. */
async function berlinOffice(prefix: string) {
  const account = await portal.createAccount(prefix);
  const profile = await json(
    await account.api["kyc-profiles"].$post({
      param: { customer_slug: account.slug },
      json: {
        name: "Berlin office",
        verification_type: "business",
        company_name: "Acme GmbH",
        address_line_1: "Unter den Linden 1",
        city: "Berlin",
        state_province: "BE",
        postal_code: "10117",
        country: "DE",
      },
    }),
    201,
  );
  return { account, profile };
}

it("shows a profile's image inline, served inline and unsniffed, and reviews the profile", { timeout: 60_000 }, async () => {
  const { account, profile } = await berlinOffice("profiled");
  const form = new FormData();
  form.set("file", new File([PNG], "registration.png"));
  form.set("document_type", "business_registration");
  const uploaded = await fetch(`${portal.base}/api/customers/${account.slug}/kyc-profiles/${profile.id}/files`, {
    method: "POST",
    headers: { Authorization: `Bearer ${account.key}` },
    body: form,
  });
  expect(uploaded.status).toBe(201);
  const documentId = ((await uploaded.json()) as { id: string }).id;

  const { page } = await portal.signInToConsole("admin");
  await page.goto(`${portal.base}/ops/reviews?subject_type=profile&customer_slug=${account.slug}`);
  await page.getByRole("link", { name: "Berlin office" }).click();
  await page.waitForURL(`${portal.base}/ops/reviews/profiles/${profile.id}`);
  // A profile is not a number's verification: its id under the other kind's page is not found.
  expect((await fromPage(page, `/ops/reviews/kyc/${profile.id.replace(/^kyp_/, "kyc_")}`)).status).toBe(404);
  // Nothing is opened (and so no view recorded) until asked for; then the image, large, beside the details.
  expect(await page.getByRole("img").count()).toBe(0);
  await page.getByRole("link", { name: "Open registration.png beside the details" }).click();
  await page.waitForURL(`${portal.base}/ops/reviews/profiles/${profile.id}?document=${documentId}`);
  const image = page.getByRole("img", { name: "registration.png" });
  expect(await image.getAttribute("src")).toBe(`/ops/documents/${documentId}`);
  const box = async (locator: ReturnType<Page["getByRole"]>) => (await locator.boundingBox()) ?? expect.fail("not shown");
  const details = page.getByRole("region", { name: "Details" });
  const [shown, beside] = [await box(image), await box(details)];
  expect(shown.width).toBeGreaterThan(400);
  expect(shown.x + shown.width).toBeLessThanOrEqual(beside.x);
  expect(beside.y).toBeLessThan(shown.y + shown.height);
  await portal.screenshot(page, "console-profile-document");
  // The browser loaded it: the page's policy lets the console's own image in.
  await expect.poll(() => page.evaluate(`document.querySelector('img[alt="registration.png"]').naturalWidth`)).toBe(1);
  const bytes = await fromPage(page, `/ops/documents/${documentId}`);
  expect(bytes.headers["content-type"]).toBe("image/png");
  expect(bytes.headers["content-disposition"]).toMatch(/^inline/);
  // Shown inline, sandboxed: nothing a customer uploaded runs script in the console's origin.
  expect(bytes.headers["content-security-policy"]).toBe("sandbox");
  expect(bytes.headers["x-content-type-options"]).toBe("nosniff");
  // At 375 px the details come under the document.
  await page.setViewportSize({ width: 375, height: 800 });
  expect((await box(details)).y).toBeGreaterThanOrEqual((await box(image)).y + (await box(image)).height);
  expect(await overflow(page)).toBe(0);
  await page.setViewportSize({ width: 1280, height: 800 });

  await page.getByRole("button", { name: "Start review" }).click();
  await page.waitForURL(/done=started$/);
  await page.getByRole("button", { name: "Approve" }).click();
  await page.waitForURL(/done=approved$/);
  expect(await page.getByRole("status").textContent()).toBe("The verification is approved.");
  const approved = await json(
    await account.api["kyc-profiles"][":profile_id"].$get({ param: { customer_slug: account.slug, profile_id: profile.id } }),
    200,
  );
  expect(approved.status).toBe("approved");
  // A move the state does not allow is refused with the use case's words, on the page, and changes nothing.
  const token = await page.locator("input[name=csrf_token]").first().inputValue();
  const stale = await fromPage(page, `/ops/reviews/profiles/${profile.id}/review`, { csrf_token: token, status: "under_review" });
  expect(stale.status).toBe(409);
  expect(stale.text).toContain("A verification cannot move from approved to under_review");
});

it("asks before approving a profile without documents, on a page of its own", { timeout: 60_000 }, async () => {
  const { account, profile } = await berlinOffice("undocumented");
  const status = async () =>
    (
      await json(
        await account.api["kyc-profiles"][":profile_id"].$get({
          param: { customer_slug: account.slug, profile_id: profile.id },
        }),
        200,
      )
    ).status;
  const { page } = await portal.signInToConsole("compliance");
  const href = `${portal.base}/ops/reviews/profiles/${profile.id}`;
  await page.goto(href);
  expect(await page.getByRole("region", { name: "Documents" }).textContent()).toContain("No documents");
  await page.getByRole("button", { name: "Start review" }).click();
  await page.waitForURL(/done=started$/);
  await page.getByRole("link", { name: "Approve…" }).click();
  await page.waitForURL(`${href}/approve`);
  expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Approve Profile Berlin office without documents?");
  await portal.screenshot(page, "console-approve-without-documents");
  await fitsSmallScreen(page);
  // Cancel goes back and changes nothing; the question's own button approves.
  await page.getByRole("link", { name: "Cancel" }).click();
  await page.waitForURL(href);
  expect(await status()).toBe("under_review");
  await page.getByRole("link", { name: "Approve…" }).click();
  await page.getByRole("button", { name: "Approve without documents" }).click();
  await page.waitForURL(`${href}?done=approved`);
  expect(await page.getByRole("status").textContent()).toBe("The verification is approved.");
  expect(await status()).toBe("approved");
});
