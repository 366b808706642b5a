// Profiles by hand, in a real browser (COMPLIANCE.md, "Portal"): a profile created with the number page's address form,
// a document uploaded to it, numbers attached by pasting their phone numbers (the attach report), a staff rejection whose reason
// names the document shown beside that document, resubmitted unchanged; an attached number's page read-only (a forged
// edit refused in the API's words); the evaluation against a pair as a checklist; an order naming a profile that does not
// meet the pair's requirements refused beside the field; numbers attached from the Numbers page, detached one by one and
// by selection; the profile deleted; a number's own verification rejected, resubmitted and deleted; every page at 375 px
// without sideways scrolling.
import type { Page } from "playwright-core";
import { expect, it } from "vitest";
import { choosePair, json, newPhones, overflow, PDF, usePortal } from "./helpers.ts";

const portal = usePortal();

/** Each page, at 375 px wide, answers 200 and does not scroll sideways. */
async function fitsSmallScreens(page: Page, paths: string[]) {
  const viewport = page.viewportSize();
  await page.setViewportSize({ width: 375, height: 800 });
  for (const path of paths) {
    const answer = await page.goto(`${portal.base}${path}`);
    expect(answer?.status(), path).toBe(200);
    expect(await overflow(page), path).toBeLessThanOrEqual(0);
  }
  if (viewport) await page.setViewportSize(viewport);
}

/** Fills the address form the number page and the new-profile page share. */
async function fillAddress(page: Page, type: "individual" | "business", country = "us") {
  await page.getByLabel("Verification for").selectOption(type);
  await page.getByLabel("Address line 1").fill("1 Market St");
  await page.getByLabel("City").fill("San Francisco");
  await page.getByLabel("State or province").fill("CA");
  await page.getByLabel("Postal code").fill("94105");
  await page.getByLabel("Country", { exact: true }).fill(country);
}

/** Posts a form from the page itself (same origin, the session's CSRF token): what a forged or stale page would send. */
async function postFromPage(page: Page, action: string, fields: Record<string, string>) {
  const script = `(() => {
    const form = document.createElement("form");
    form.method = "post";
    form.action = ${JSON.stringify(action)};
    const fields = { csrf_token: document.querySelector("input[name=csrf_token]").value, ...${JSON.stringify(fields)} };
    for (const [name, value] of Object.entries(fields)) {
      const input = document.createElement("input");
      input.type = "hidden";
      input.name = name;
      input.value = value;
      form.append(input);
    }
    document.body.append(form);
    form.submit();
  })()`;
  const [answer] = await Promise.all([
    page.waitForResponse((r) => r.url().endsWith(action) && r.request().method() === "POST"),
    page.evaluate(script),
  ]);
  await page.waitForLoadState();
  return answer;
}

it("creates a profile, uploads to it, attaches numbers by pasting phone numbers, and shows a rejection's reason beside the document", {
  timeout: 90_000,
}, async () => {
  await portal.makeOrderable("US", "mobile");
  const { page, account } = await portal.signInAsNewOwner();
  const order = await json(
    await account.api.orders.$post({
      param: { customer_slug: account.slug },
      json: { number_type: "mobile", country_code: "US", quantity: 2 },
    }),
    201,
  );
  const [first, second] = await portal.allocateNumbers(order.order_id, 2);

  // Create: a name and the number page's address form.
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Profiles" }).click();
  await page.waitForURL(`${portal.base}/portal/profiles`);
  await page.getByRole("link", { name: "New profile" }).click();
  await page.getByLabel("Profile name").fill("Berlin office");
  await fillAddress(page, "individual");
  await portal.screenshot(page, "new-profile");
  await page.getByRole("button", { name: "Create profile" }).click();
  await page.waitForURL(/\/portal\/profiles\/kyp_[0-9a-f-]{36}\?done=created$/);
  expect(await page.getByRole("status").textContent()).toContain("The profile is created.");
  const profileId = new URL(page.url()).pathname.split("/").pop()!;
  const profile = async () =>
    json(
      await account.api["kyc-profiles"][":profile_id"].$get({ param: { customer_slug: account.slug, profile_id: profileId } }),
      200,
    );
  expect(await profile()).toMatchObject({ name: "Berlin office", status: "pending", address: { country: "US" } });

  // Upload a document.
  await page.getByLabel("File").setInputFiles({ name: "passport.pdf", mimeType: "application/pdf", buffer: PDF });
  await page.getByLabel("Document type").selectOption("identity");
  await page.getByRole("button", { name: "Upload" }).click();
  await page.waitForURL(/done=uploaded$/);
  expect(await page.getByRole("status").textContent()).toBe("The document is uploaded.");
  const [document] = (await profile()).documents;
  expect(document).toMatchObject({ filename: "passport.pdf", status: "uploaded" });

  // Attach two numbers by pasting their phone numbers (one per line): the report says what happened.
  await page.getByLabel("Phone numbers").fill(`${first!.phone}\n${second!.phone}`);
  await page.getByRole("button", { name: "Attach the numbers" }).click();
  // The POST answers with a redirect to the profile, which shows the report once: a reload shows none.
  await page.waitForURL(`${portal.base}/portal/profiles/${profileId}`);
  const report = page.getByRole("region", { name: "Attach report" });
  expect(await report.locator("p").first().textContent()).toBe("2 numbers attached · 0 already attached · 0 not attached");
  expect(await report.getByRole("link", { name: first!.phone }).getAttribute("href")).toBe(`/portal/numbers/${first!.numberId}`);
  expect(await report.textContent()).not.toContain(first!.numberId);
  const attached = await json(
    await account.api.numbers.$get({ param: { customer_slug: account.slug }, query: { kyc_profile_id: profileId } }),
    200,
  );
  expect(attached.data.map((n) => n.number_id).sort()).toEqual([first!.numberId, second!.numberId].sort());

  // A phone number the account does not have: refused beside the field, nothing attached, what was typed kept.
  const [unknown] = newPhones("+1999", 1);
  await page.getByLabel("Phone numbers").fill(`${first!.phone}, ${unknown}`);
  await page.getByRole("button", { name: "Attach the numbers" }).click();
  expect(await page.locator("#phone_numbers-error").textContent()).toBe(`This account has no number ${unknown}`);
  expect(await page.getByLabel("Phone numbers").inputValue()).toBe(`${first!.phone}, ${unknown}`);
  await portal.screenshot(page, "profile-attach-refused");
  // Again, one already attached: said in words.
  await page.getByLabel("Phone numbers").fill(first!.phone);
  await page.getByRole("button", { name: "Attach the numbers" }).click();
  await page.waitForURL(`${portal.base}/portal/profiles/${profileId}`);
  expect(await report.locator("p").first().textContent()).toBe("0 numbers attached · 1 already attached · 0 not attached");
  await portal.screenshot(page, "profile-attach-report");
  await page.reload();
  expect(await page.getByRole("region", { name: "Attach report" }).count()).toBe(0);

  // Staff reject the profile with a reason naming the document.
  await portal.rejectProfile(profileId, {
    reason: "The identity document cannot be read",
    documentId: document!.id,
    note: "The scan is cut off at the bottom",
  });
  await page.goto(`${portal.base}/portal/profiles/${profileId}`);
  expect(await page.getByRole("heading", { level: 1 }).textContent()).toContain("rejected");
  // The page leads with what to fix: the reviewer's words, each reason with what it names, the way forward first.
  const fixes = page.getByRole("region", { name: "What to fix" });
  expect(await fixes.textContent()).toContain("The identity document cannot be read");
  expect(await fixes.getByRole("listitem").first().textContent()).toBe(
    "passport.pdf: Document illegible: The scan is cut off at the bottom",
  );
  expect(await fixes.locator("a.button").first().textContent()).toBe("Upload a replacement document");
  // The reason beside the document it names, in the reviewer's words.
  const documentRow = page.getByRole("table", { name: "Documents" }).locator("tbody tr", { hasText: "passport.pdf" });
  expect(await documentRow.getByRole("list", { name: "Reasons about passport.pdf" }).textContent()).toBe(
    "Document illegible: The scan is cut off at the bottom",
  );
  // A document a reason named may be deleted while the profile is rejected.
  expect(await documentRow.getByRole("link", { name: "Delete passport.pdf…" }).count()).toBe(1);
  await portal.screenshot(page, "profile-rejected");
  await fitsSmallScreens(page, [`/portal/profiles/${profileId}`]);

  // An attached number's page shows the profile's verification, with no way to change it there.
  await page.goto(`${portal.base}/portal/numbers/${first!.numberId}`);
  expect(await page.getByRole("link", { name: "Berlin office" }).getAttribute("href")).toBe(`/portal/profiles/${profileId}`);
  expect(await page.getByRole("button", { name: "Upload" }).count()).toBe(0);
  expect(await page.getByRole("link", { name: "Amend the address" }).count()).toBe(0);
  expect(
    await page.getByRole("table", { name: "Documents" }).getByRole("list", { name: "Reasons about passport.pdf" }).textContent(),
  ).toBe("Document illegible: The scan is cut off at the bottom");
  await portal.screenshot(page, "number-of-profile");
  // A forged edit is refused in the API's words.
  const forged = await postFromPage(page, `/portal/numbers/${first!.numberId}/address/edit`, {
    address_line_1: "2 Market St",
    city: "Oakland",
    state_province: "CA",
    postal_code: "94607",
    country: "US",
  });
  expect(forged.status()).toBe(409);
  expect(await page.getByRole("alert").textContent()).toBe(
    `This number's verification is its profile ${profileId}'s: change the profile, or detach the number first`,
  );

  // Resubmitted unchanged, it waits for review again.
  await page.goto(`${portal.base}/portal/profiles/${profileId}`);
  await page.getByRole("button", { name: "Resubmit unchanged" }).click();
  await page.waitForURL(/done=resubmitted$/);
  expect(await page.getByRole("status").textContent()).toBe("The profile is resubmitted unchanged: it waits for review again.");
  expect(await profile()).toMatchObject({ status: "pending", rejection_reason: null, rejection_reasons: [] });
});

it("checks a profile against a pair, refuses an order naming it beside the field, attaches from Numbers, detaches and deletes it", {
  timeout: 90_000,
}, async () => {
  await portal.makeOrderable("US", "mobile");
  await portal.makeOrderable("GB", "landline");
  await json(
    await portal.admin.admin.catalog[":country_code"][":number_type"].requirements.$put({
      param: { country_code: "GB", number_type: "landline" },
      json: {
        verification_types: ["business"],
        address_in_country: true,
        fields: { individual: [], business: ["tax_id"] },
        documents: [
          {
            key: "proof_of_address",
            document_types: ["utility_bill"],
            applies_to: ["business"],
            description: "A utility bill under 3 months old",
          },
        ],
      },
    }),
    200,
  );
  // Every role works with profiles: a member here.
  const { page, account } = await portal.signInAsNewUser("member");
  const created = await json(
    await account.api["kyc-profiles"].$post({
      param: { customer_slug: account.slug },
      json: {
        name: "Austin call centre",
        verification_type: "individual",
        address_line_1: "500 Congress Ave",
        city: "Austin",
        state_province: "TX",
        postal_code: "78701",
        country: "US",
      },
    }),
    201,
  );
  const profilePath = `/portal/profiles/${created.id}`;

  // The evaluation against a pair the visitor picks: each requirement met, unmet with the reason's words, or not applicable.
  await page.goto(`${portal.base}${profilePath}`);
  await page.getByLabel("Check against").selectOption("GB/landline");
  await page.getByRole("button", { name: "Check" }).click();
  await page.waitForURL(/pair=GB%2Flandline/);
  const checklist = page.getByRole("list", { name: "Requirements of GB landline numbers" });
  const item = (name: string) => checklist.locator(":scope > li", { hasText: name });
  expect(await item("Verification type").textContent()).toContain("unmet");
  expect(await item("Verification type").textContent()).toContain("This number accepts only a verification of a business");
  expect(await item("Address").textContent()).toContain("The address must be in GB");
  expect(await item("Tax ID").textContent()).toContain("not applicable");
  expect(await item("A utility bill under 3 months old").textContent()).toContain("not applicable");
  await portal.screenshot(page, "profile-evaluation");

  // An order naming the profile for that pair is refused, each unmet requirement beside the profile field.
  await page.goto(`${portal.base}/portal/orders/new`);
  expect(
    await page
      .getByRole("table", { name: "What each pair requires" })
      .locator("tbody tr", { has: page.locator('[data-pair="GB/landline"]') })
      .textContent(),
  ).toContain("A utility bill under 3 months old");
  await choosePair(page, "GB", "landline");
  await page.getByLabel("Quantity").fill("1");
  await page.getByLabel("Profile").selectOption(created.id);
  await page.getByRole("button", { name: "Place order" }).click();
  await page.waitForURL(`${portal.base}/portal/orders/new`);
  const beside = page.locator("#kyc_profile_id-error");
  expect(await beside.locator("li").allTextContents()).toEqual([
    "Verification type: This number accepts only a verification of a business",
    "Address: The address must be in GB",
  ]);
  expect(await page.getByLabel("Profile").getAttribute("aria-describedby")).toContain("kyc_profile_id-error");
  await portal.screenshot(page, "new-order-refused");

  // Numbers selected on the Numbers page join the profile.
  const order = await json(
    await account.api.orders.$post({
      param: { customer_slug: account.slug },
      json: { number_type: "mobile", country_code: "US", quantity: 2 },
    }),
    201,
  );
  const [first, second] = await portal.allocateNumbers(order.order_id, 2);
  await page.goto(`${portal.base}/portal/numbers`);
  await page.getByLabel(`Select ${first!.phone}`).check();
  await page.getByLabel(`Select ${second!.phone}`).check();
  await page.getByLabel("Attach to profile").selectOption(created.id);
  await portal.screenshot(page, "numbers-selection");
  await page.getByRole("button", { name: "Attach the selected numbers" }).click();
  expect(await page.getByRole("region", { name: "Attach report" }).locator("p").first().textContent()).toBe(
    "2 numbers attached · 0 already attached · 0 not attached",
  );

  // The Numbers list filtered by the profile; each row links its profile.
  await page.getByRole("link", { name: "Show them in Numbers" }).click();
  const rows = page.getByRole("table", { name: "Numbers" }).locator("tbody tr");
  expect(await rows.count()).toBe(2);
  expect(await rows.first().getByRole("link", { name: "Austin call centre" }).getAttribute("href")).toBe(profilePath);
  await page.goto(`${portal.base}/portal/numbers?kyc_expires_before=2020-01-01`);
  expect(await page.getByRole("table", { name: "Numbers" }).count()).toBe(0);

  await fitsSmallScreens(page, [
    "/portal/profiles",
    "/portal/profiles/new",
    profilePath,
    `${profilePath}?pair=GB/landline`,
    `${profilePath}/edit`,
    `${profilePath}/delete`,
    "/portal/numbers",
    `/portal/numbers/${first!.numberId}`,
    "/portal/orders/new",
  ]);

  // Detach one number, then the other by selection.
  await page.goto(`${portal.base}${profilePath}`);
  await page.getByRole("button", { name: `Detach ${first!.phone}` }).click();
  const detachReport = page.getByRole("region", { name: "Detach report" });
  expect(await detachReport.locator("p").first().textContent()).toBe("1 number detached · 0 already detached · 0 not detached");
  await page.getByLabel(`Select ${second!.phone}`).check();
  await page.getByRole("button", { name: "Detach the selected numbers" }).click();
  expect(await detachReport.locator("p").first().textContent()).toBe("1 number detached · 0 already detached · 0 not detached");
  const left = await json(
    await account.api.numbers.$get({ param: { customer_slug: account.slug }, query: { kyc_profile_id: created.id } }),
    200,
  );
  expect(left.data).toEqual([]);

  // Renamed (in any state), then deleted after a confirmation.
  await page.getByRole("link", { name: "Rename or amend…" }).click();
  await page.getByLabel("Profile name").fill("Austin office");
  await page.getByRole("button", { name: "Save name" }).click();
  await page.waitForURL(/done=renamed$/);
  expect(await page.getByRole("heading", { level: 1 }).textContent()).toContain("Austin office");
  await page.getByRole("link", { name: "Delete profile…" }).click();
  expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Delete the profile Austin office?");
  await page.getByRole("button", { name: "Delete the profile" }).click();
  await page.waitForURL(`${portal.base}/portal/profiles?done=deleted`);
  expect(await page.getByRole("status").textContent()).toBe("The profile is deleted.");
  const gone = await account.api["kyc-profiles"][":profile_id"].$get({
    param: { customer_slug: account.slug, profile_id: created.id },
  });
  expect(gone.status).toBe(404);
  await portal.screenshot(page, "profiles");
});

it("shows a number's own rejection beside the field, resubmits it, and deletes it so the number can join a profile", async () => {
  await portal.makeOrderable("US", "mobile");
  const { page, account } = await portal.signInAsNewOwner();
  const order = await json(
    await account.api.orders.$post({
      param: { customer_slug: account.slug },
      json: { number_type: "mobile", country_code: "US", quantity: 1 },
    }),
    201,
  );
  const [number] = await portal.allocateNumbers(order.order_id, 1);
  await page.goto(`${portal.base}/portal/numbers/${number!.numberId}`);
  await fillAddress(page, "individual");
  await page.getByRole("button", { name: "Submit address" }).click();
  await page.waitForURL(/done=submitted$/);
  const verification = async () =>
    (await (
      await fetch(`${portal.base}/v1/numbers/num_${number!.numberId}/KYC`, {
        headers: { Authorization: `Bearer ${account.key}` },
      })
    ).json()) as { id: string; status: string };
  const { id: kycId } = await verification();
  const review = portal.admin.admin.kyc[":kyc_id"].review;
  await json(await review.$post({ param: { kyc_id: kycId }, json: { status: "under_review" } }), 200);
  await json(
    await review.$post({
      param: { kyc_id: kycId },
      json: {
        status: "rejected",
        rejection_reason: "The postal code does not match the city",
        reasons: [{ code: "field_invalid", field: "postal_code", note: "94105 is not in this part of the city" }],
      },
    }),
    200,
  );
  await page.reload();
  expect(await page.getByRole("list", { name: "Reasons about Postal code" }).textContent()).toBe(
    "Field invalid: 94105 is not in this part of the city",
  );
  // The way forward leads (a field's reason: amend the address), and the amend form says it beside the field, too.
  expect(await page.getByRole("region", { name: "What to fix" }).locator("a.button").first().textContent()).toBe(
    "Amend the address",
  );
  await page.getByRole("link", { name: "Amend the address" }).first().click();
  expect(await page.locator("#postal_code-hint").textContent()).toBe(
    "Reviewer: Field invalid: 94105 is not in this part of the city",
  );
  await page.goBack();

  await page.getByRole("button", { name: "Resubmit unchanged" }).click();
  await page.waitForURL(/done=resubmitted$/);
  expect((await verification()).status).toBe("pending");

  await page.getByRole("link", { name: "Delete verification…" }).click();
  await page.getByRole("button", { name: "Delete the verification" }).click();
  await page.waitForURL(/done=removed$/);
  expect(await page.getByRole("status").textContent()).toBe(
    "The verification is deleted. Submit a new address, or attach the number to a profile.",
  );
  const answer = await fetch(`${portal.base}/v1/numbers/num_${number!.numberId}/KYC`, {
    headers: { Authorization: `Bearer ${account.key}` },
  });
  expect(answer.status).toBe(404);
});
