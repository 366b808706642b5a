// The portal as people read it (inside the workers pool, on the pages' HTML): every control named by its label alone,
// its hint and error tied to it; words instead of stored values; counts with their noun; teammates shown as they are;
// country codes taken in either case; only orderable pairs offered.
import { describe, expect, it } from "vitest";
import {
  allocateNumbers,
  createCustomer,
  expectStatus,
  INDIVIDUAL_ADDRESS,
  makeOrderable,
  operator,
  problem,
  uniqueNumberType,
} from "./helpers.ts";
import { invitedUser, pageText, signedIn } from "./portal.ts";

/** The ids on a page. */
function idsOf(html: string): Set<string> {
  return new Set([...html.matchAll(/\sid="([^"]+)"/g)].map((match) => match[1]!));
}

/**
 * Asserts that a page's labels hold their words alone (a checkbox may sit inside its label, with words only a screen
 * reader reads), that every
 * id an aria-describedby names is on the page, and that every hint and field error is named by its control.
 */
function expectLabelledAlone(html: string, page: string): void {
  const labels = [...html.matchAll(/<label\b[^>]*>([\s\S]*?)<\/label>/g)].map((match) => match[1]!);
  expect(labels.length, page).toBeGreaterThan(0);
  expect(
    labels.filter((inner) => inner.replace(/<input\b[^>]*>|<span class="visually-hidden">[^<]*<\/span>/g, "").includes("<")),
    page,
  ).toEqual([]);
  const described = new Set([...html.matchAll(/aria-describedby="([^"]+)"/g)].flatMap((match) => match[1]!.split(" ")));
  const ids = idsOf(html);
  expect(
    [...described].filter((id) => !ids.has(id)),
    page,
  ).toEqual([]);
  const explaining = [...html.matchAll(/class="(?:hint muted|field-error)" id="([^"]+)"/g)].map((match) => match[1]!);
  expect(
    explaining.filter((id) => !described.has(id)),
    page,
  ).toEqual([]);
}

describe("the portal as people read it", () => {
  it("names each control by its label alone, with its hint and error tied to it by aria-describedby", async () => {
    const customer = await createCustomer("read");
    const owner = await signedIn(customer, "owner");
    const [number] = await allocateNumbers(customer, 1);
    const pages = [
      "/portal/orders",
      "/portal/orders/new",
      "/portal/numbers",
      `/portal/numbers/${number!.number_id}`,
      "/portal/profiles/new",
      "/portal/settings/api-keys",
      "/portal/settings/team",
      "/portal/settings/webhooks",
      "/portal/settings/activity",
    ];
    let hints = 0;
    for (const path of pages) {
      const html = await pageText(await owner.get(path), 200);
      expectLabelledAlone(html, path);
      hints += [...html.matchAll(/class="hint muted" id=/g)].length;
    }
    // With errors beside the fields too.
    const refused = await pageText(await owner.get("/portal/orders?quantity_min=9&quantity_max=2&country_code=U"), 400);
    expectLabelledAlone(refused, "the orders' refused filters");
    expect(refused).toMatch(/aria-describedby="quantity_min-error"/);
    // The walk saw hints (the address form's, the filters'), so it held for something.
    expect(hints).toBeGreaterThan(5);
    const address = await pageText(await owner.get(`/portal/numbers/${number!.number_id}`), 200);
    expect(address).toContain('<label for="country">Country</label>');
    expect(address).toMatch(/id="country"[^>]*aria-describedby="country-hint"|aria-describedby="country-hint"[^>]*id="country"/);
  });

  it("says stored values in words, and counts with their noun", async () => {
    const customer = await createCustomer("read");
    const owner = await signedIn(customer, "owner");
    // One key (the account's own): "1 key", never "1 keys".
    const keys = await pageText(await owner.get("/portal/settings/api-keys"), 200);
    expect(keys).toMatch(/\b1 key\b/);
    expect(keys).not.toMatch(/\b1 keys\b/);
    // The sort field's choices and a verification's type read as words, their stored values only as the options' values.
    const orders = await pageText(await owner.get("/portal/orders"), 200);
    expect(orders).toMatch(/<option value="created_at"[^>]*>Created<\/option>/);
    expect(orders).not.toMatch(/>\s*created_at\s*</);
    const profile = await pageText(await owner.get("/portal/profiles/new"), 200);
    expect(profile).toMatch(/<option value="individual"[^>]*>A person<\/option>/);
    expect(profile).not.toMatch(/>\s*individual\s*</);
  });

  it("shows an invited teammate as invited, and offers nobody to deactivate themselves", async () => {
    const customer = await createCustomer("read");
    const owner = await signedIn(customer, "owner");
    const invited = await invitedUser(customer, "member");
    const team = await pageText(await owner.get("/portal/settings/team"), 200);
    const rowOf = (email: string) =>
      [...team.matchAll(/<tr\b[\s\S]*?<\/tr>/g)].map((m) => m[0]).find((row) => row.includes(email));
    const invitedRow = rowOf(invited.email) ?? "";
    expect(invitedRow).toContain(">invited<");
    expect(invitedRow).not.toContain(">active<");
    expect(invitedRow).toContain(">Deactivate<");
    const ownRow = rowOf(owner.user.email) ?? "";
    expect(ownRow).toContain("(you)");
    expect(ownRow).toContain(">active<");
    expect(ownRow).not.toContain("Deactivate");
  });

  it("offers the catalog's countries by name and its types in the filters, judged as the API judges them; the address form takes any case", async () => {
    const customer = await createCustomer("read");
    const owner = await signedIn(customer, "owner");
    const [number] = await allocateNumbers(customer, 1);
    // The account's one order is in the US: US finds it, GB does not (a filter ignored would show it).
    const filtered = await pageText(await owner.get("/portal/orders?country_code=US"), 200);
    expect(filtered).toContain(`<input type="checkbox" name="country_code" value="US" checked=""/>United States (US)</label>`);
    expect(filtered).toContain(`<input type="checkbox" name="number_type" value="mobile"/>Mobile</label>`);
    expect(filtered).toContain(`<td data-label="Country"><div>US</div></td>`);
    const elsewhere = await pageText(await owner.get("/portal/orders?country_code=GB"), 200);
    expect(elsewhere).not.toContain(`<td data-label="Country"><div>US</div></td>`);
    // One rule for a code, the API's, said as it is applied: lower case is refused beside the field, not half taken.
    const lower = await pageText(await owner.get("/portal/orders?country_code=us"), 400);
    expect(lower).toContain(
      `<p class="field-error" id="country_code-error">Countries has an invalid item &quot;us&quot;: must be 2 uppercase letters (ISO 3166-1 alpha-2)</p>`,
    );
    expect(lower).toContain(`<input type="checkbox" name="country_code" value="us" checked=""/>us</label>`);
    await problem(await customer.call(`/api/customers/${customer.slug}/orders?country_code=us`), 400, "validation_error");
    const submitted = await owner.post(`/portal/numbers/${number!.number_id}/address`, {
      ...INDIVIDUAL_ADDRESS,
      country: "us",
    });
    expect(submitted.status, await submitted.clone().text()).toBe(303);
    const amended = await owner.post(`/portal/numbers/${number!.number_id}/address/edit`, {
      ...INDIVIDUAL_ADDRESS,
      address_line_1: "2 Main St",
      country: "gb",
    });
    expect(amended.status, await amended.clone().text()).toBe(303);
    const shown = await pageText(await owner.get(`/portal/numbers/${number!.number_id}`), 200);
    expect(shown).toContain("2 Main St");
    expect(shown).toMatch(/>GB</);
  });

  it("offers on the new-order form only the pairs the catalog makes orderable, each type under its country", async () => {
    const customer = await createCustomer("read");
    const owner = await signedIn(customer, "owner");
    const orderable = uniqueNumberType();
    const absent = uniqueNumberType();
    await makeOrderable("SE", orderable);
    // A pair once orderable and taken out of the catalog is not offered.
    await makeOrderable("SE", absent);
    await expectStatus(
      await operator.admin.catalog[":country_code"][":number_type"].$delete({
        param: { country_code: "SE", number_type: absent },
      }),
      200,
    );
    const form = await pageText(await owner.get("/portal/orders/new"), 200);
    const sweden = /<optgroup label="SE"[^>]*>([\s\S]*?)<\/optgroup>/.exec(form)?.[1] ?? "";
    expect(sweden).toContain(`value="${orderable}"`);
    expect(form).not.toContain(absent);
  });
});
