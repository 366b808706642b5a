// Orders and verifications by hand, in a real browser: an order placed and edited through the portal's forms; an
// address submitted and a document uploaded, downloaded and deleted; each time the API answers what the page showed.
import { readFile } from "node:fs/promises";
import { expect, it } from "vitest";
import { choosePair, json, PDF, usePortal } from "./helpers.ts";

const portal = usePortal();

it("places an order through the new-order form and edits it while pending; the API shows both", async () => {
  await portal.makeOrderable("US", "mobile");
  const { page, account } = await portal.signInAsNewOwner();
  await page.getByRole("link", { name: "New order" }).click();
  await page.waitForURL(`${portal.base}/portal/orders/new`);
  // The type follows the country: only the chosen country's types are offered.
  await choosePair(page, "US", "mobile");
  expect(
    await page.evaluate("[...document.querySelectorAll('select[name=number_type] optgroup:not([hidden])')].map((g) => g.label)"),
  ).toEqual(["US"]);
  await page.getByLabel("Quantity").fill("3");
  await page.getByLabel("Notes").fill("Front desk lines");
  await portal.screenshot(page, "new-order");
  await page.getByRole("button", { name: "Place order" }).click();
  await page.waitForURL(/\/portal\/orders\/[0-9a-f-]{36}\?done=placed$/);
  expect(await page.getByRole("status").textContent()).toBe(
    "The order is placed. It can be changed or cancelled here until it is processed.",
  );
  const orderId = new URL(page.url()).pathname.split("/").pop()!;
  const placed = await json(
    await account.api.orders[":order_id"].$get({ param: { customer_slug: account.slug, order_id: orderId } }),
    200,
  );
  expect(placed).toMatchObject({ quantity: 3, notes: "Front desk lines", status: "pending", number_type: "mobile" });
  await portal.screenshot(page, "order");

  await page.getByLabel("Quantity").fill("5");
  await page.getByRole("button", { name: "Save changes" }).click();
  await page.waitForURL(`${portal.base}/portal/orders/${orderId}?done=saved`);
  expect(await page.getByRole("status").textContent()).toBe("The order is saved.");
  const edited = await json(
    await account.api.orders[":order_id"].$get({ param: { customer_slug: account.slug, order_id: orderId } }),
    200,
  );
  expect(edited.quantity).toBe(5);
  expect(await page.locator("dl.facts").textContent()).toContain("5");
});

it("submits a number's address, uploads, downloads and deletes a document; the API follows each step", async () => {
  await portal.makeOrderable("US", "mobile");
  const { page, account } = await portal.signInAsNewOwner();
  const order = await json(
    await account.api.orders.$post({
      param: { customer_slug: account.slug },
      json: { number_type: "mobile", country_code: "US", quantity: 1 },
    }),
    201,
  );
  const { numberId, phone } = await portal.allocateNumber(order.order_id);
  const verification = () =>
    fetch(`${portal.base}/v1/numbers/num_${numberId}/KYC`, { headers: { Authorization: `Bearer ${account.key}` } });

  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Numbers", exact: true }).click();
  await portal.screenshot(page, "numbers");
  await page.getByRole("link", { name: phone }).click();
  await page.getByLabel("Verification for").selectOption("individual");
  await page.getByLabel("Address line 1").fill("1 Market St");
  await page.getByLabel("City").fill("San Francisco");
  await page.getByLabel("State or province").fill("CA");
  await page.getByLabel("Postal code").fill("94105");
  // Lowercase is taken, as a person types it.
  await page.getByLabel("Country", { exact: true }).fill("us");
  await page.getByRole("button", { name: "Submit address" }).click();
  await page.waitForURL(/done=submitted$/);
  expect(await page.getByRole("status").textContent()).toBe("The address is submitted. Now upload the documents that prove it.");
  await expect.poll(async () => (await verification()).status).toBe(200);
  expect(await (await verification()).json()).toMatchObject({ status: "pending", address: { city: "San Francisco" } });

  await page.getByLabel("File").setInputFiles({ name: "passport.pdf", mimeType: "application/pdf", buffer: PDF });
  await page.getByLabel("Document type").selectOption("identity");
  await page.getByRole("button", { name: "Upload" }).click();
  await page.waitForURL(/done=uploaded$/);
  expect(await page.getByRole("status").textContent()).toBe("The document is uploaded.");
  await page.getByRole("link", { name: "Download" }).waitFor();
  await portal.screenshot(page, "verification");
  const withDocument = (await (await verification()).json()) as { documents: { filename: string }[] };
  expect(withDocument.documents.map((d) => d.filename)).toEqual(["passport.pdf"]);

  const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("link", { name: "Download" }).click()]);
  expect(download.suggestedFilename()).toBe("passport.pdf");
  expect(Buffer.compare(await readFile((await download.path())!), PDF)).toBe(0);

  // Deleting asks first.
  await page.getByRole("link", { name: "Delete passport.pdf…" }).click();
  expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Delete passport.pdf?");
  await portal.screenshot(page, "delete-document");
  expect(((await (await verification()).json()) as { documents: unknown[] }).documents).toHaveLength(1);
  await page.getByRole("button", { name: "Delete the document" }).click();
  await page.waitForURL(/done=deleted$/);
  expect(await page.getByRole("status").textContent()).toBe("The document is deleted.");
  expect(((await (await verification()).json()) as { documents: unknown[] }).documents).toHaveLength(0);

  // Amending the address is one click away, on a page of its own.
  await page.getByRole("link", { name: "Amend the address" }).click();
  expect(await page.getByLabel("City").inputValue()).toBe("San Francisco");
  await page.getByLabel("City").fill("Oakland");
  await portal.screenshot(page, "amend-address");
  await page.getByRole("button", { name: "Save address" }).click();
  await page.waitForURL(/done=amended$/);
  expect(await page.getByRole("status").textContent()).toBe("The address is saved.");
  expect(await (await verification()).json()).toMatchObject({ address: { city: "Oakland" } });
});
